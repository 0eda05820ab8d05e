// POST /api/v1/customers: every rule, with errors keyed by field path.
import { FieldErrorList } from './api-error.js';
import type { Address } from './books.js';

export interface CustomerInput {
  name: string;
  email: string | null;
  phone: string | null;
  tax_number: string | null;
  address: Address;
  notes: string | null;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE_RE = /^\+?[0-9 ()\-.]{4,30}$/;
const ADDRESS_KEYS = ['line1', 'line2', 'city', 'region', 'postal_code'] as const;

function optionalText(body: Record<string, unknown>, field: string, max: number, errors: FieldErrorList, path = field): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') {
    errors.add(path, `${path} must be a string`);
    return null;
  }
  if (v.length > max) errors.add(path, `${path} may not be longer than ${max} characters`);
  return v.trim() === '' ? null : v;
}

function readAddress(raw: unknown, errors: FieldErrorList): Address {
  const address: Address = { line1: null, line2: null, city: null, region: null, postal_code: null };
  if (raw === undefined || raw === null) return address;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    errors.add('address', 'address must be an object with line1, line2, city, region and postal_code');
    return address;
  }
  for (const key of ADDRESS_KEYS) {
    address[key] = optionalText(raw as Record<string, unknown>, key, 255, errors, `address.${key}`);
  }
  return address;
}

export function validateCustomer(body: Record<string, unknown>): CustomerInput {
  const errors = new FieldErrorList();
  let name = '';
  if (body.name === undefined || body.name === null) errors.add('name', 'name is required');
  else if (typeof body.name !== 'string') errors.add('name', 'name must be a string');
  else if (body.name.trim() === '') errors.add('name', 'name may not be blank');
  else if (body.name.length > 255) errors.add('name', 'name may not be longer than 255 characters');
  else name = body.name.trim();

  const email = optionalText(body, 'email', 255, errors);
  if (email !== null && !EMAIL_RE.test(email)) errors.add('email', 'email must be a valid email address');
  const phone = optionalText(body, 'phone', 50, errors);
  if (phone !== null && !PHONE_RE.test(phone)) {
    errors.add('phone', 'phone may hold digits, spaces, + ( ) - and . only, ideally with the country code');
  }
  const tax_number = optionalText(body, 'tax_number', 50, errors);
  const address = readAddress(body.address, errors);
  const notes = optionalText(body, 'notes', 2000, errors);
  errors.throwIfAny();
  return { name, email, phone, tax_number, address, notes };
}
