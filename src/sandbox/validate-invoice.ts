// POST /api/v1/invoices: every rule, with errors keyed by field path (`items.0.quantity`).

import { bodyDecimal, Decimal } from './amounts.js';
import { FieldErrorList } from './api-error.js';
import type { Product, TaxCategory } from './books.js';
import type { Books } from './collection.js';
import { addDays, isCalendarDate } from './time.js';

export interface LineInput {
  quantity: string;
  product: Product | null;
  description: string | null;
  unit_price: string | null;
  taxCategory: TaxCategory | null;
}

export interface InvoiceInput {
  customerId: number;
  issue_date: string;
  due_date: string;
  items: LineInput[];
  notes: string | null;
  terms: string | null;
}

export interface InvoiceRules {
  books: Books;
  taxCategories: readonly TaxCategory[];
  today: string;
}

const MAX_LINES = 200;

const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

function readQuantity(raw: unknown, path: string, errors: FieldErrorList): string {
  if (raw === undefined || raw === null) {
    errors.add(path, `${path} is required`);
    return '0';
  }
  // A JSON number is read through its shortest decimal form, which is exactly what the sender wrote
  // for any quantity of up to 15 significant digits.
  const quantity = bodyDecimal(raw);
  if (quantity === null) {
    errors.add(path, `${path} must be a number or a decimal string such as "2.5"`);
    return '0';
  }
  if (!quantity.isPositive()) errors.add(path, `${path} must be greater than 0`);
  else if (quantity.places > 6) errors.add(path, `${path} may have at most 6 decimal places`);
  return quantity.toString();
}

function readUnitPrice(raw: unknown, path: string, errors: FieldErrorList): string | null {
  if (raw === undefined || raw === null) return null;
  const price = typeof raw === 'string' ? Decimal.read(raw) : null;
  if (price === null) {
    errors.add(path, `${path} must be a decimal string such as "19.95"`);
    return null;
  }
  if (price.lt(Decimal.ZERO)) errors.add(path, `${path} may not be negative`);
  else if (price.places > 4) errors.add(path, `${path} may have at most 4 decimal places`);
  return price.toString();
}

function readLine(raw: unknown, i: number, rules: InvoiceRules, errors: FieldErrorList): LineInput {
  const at = `items.${i}`;
  const line: LineInput = { quantity: '0', product: null, description: null, unit_price: null, taxCategory: null };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.add(at, `${at} must be an object with quantity and either product_id or description and unit_price`);
    return line;
  }
  const item = raw as Record<string, unknown>;
  line.quantity = readQuantity(item.quantity, `${at}.quantity`, errors);
  if (item.product_id !== undefined && item.product_id !== null) {
    if (!isInteger(item.product_id)) errors.add(`${at}.product_id`, `${at}.product_id must be an integer`);
    else {
      line.product = rules.books.products.get(item.product_id) ?? null;
      if (!line.product) errors.add(`${at}.product_id`, `${at}.product_id does not name a product of this business`);
      else if (!line.product.is_active) errors.add(`${at}.product_id`, `${at}.product_id names an archived product`);
    }
  }
  if (item.description !== undefined && item.description !== null) {
    if (typeof item.description !== 'string' || item.description.trim() === '') {
      errors.add(`${at}.description`, `${at}.description must be a non-empty string`);
    } else if (item.description.length > 2000) {
      errors.add(`${at}.description`, `${at}.description may not be longer than 2000 characters`);
    } else line.description = item.description;
  }
  line.unit_price = readUnitPrice(item.unit_price, `${at}.unit_price`, errors);
  const named = item.product_id !== undefined && item.product_id !== null;
  if (!named) {
    if (item.description === undefined || item.description === null) {
      errors.add(`${at}.description`, `${at}.description is required when the line has no product_id`);
    }
    if (item.unit_price === undefined || item.unit_price === null) {
      errors.add(`${at}.unit_price`, `${at}.unit_price is required when the line has no product_id`);
    }
  }
  if (item.tax_category_id !== undefined && item.tax_category_id !== null) {
    const id = item.tax_category_id;
    line.taxCategory = isInteger(id) ? (rules.taxCategories.find((t) => t.id === id) ?? null) : null;
    if (!line.taxCategory) errors.add(`${at}.tax_category_id`, `${at}.tax_category_id does not name a tax category of this business`);
  }
  return line;
}

function readDate(raw: unknown, field: string, errors: FieldErrorList): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string' || !isCalendarDate(raw)) {
    errors.add(field, `${field} must be a date written YYYY-MM-DD`);
    return null;
  }
  return raw;
}

function readCustomer(raw: unknown, rules: InvoiceRules, errors: FieldErrorList): number {
  if (raw === undefined || raw === null) errors.add('customer_id', 'customer_id is required');
  else if (!isInteger(raw)) errors.add('customer_id', 'customer_id must be an integer');
  else {
    const customer = rules.books.customers.get(raw);
    if (!customer) errors.add('customer_id', 'customer_id does not name a customer of this business');
    else if (customer.status === 'archived') errors.add('customer_id', 'customer_id names an archived customer');
    else return raw;
  }
  return 0;
}

function readText(raw: unknown, field: string, errors: FieldErrorList): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') errors.add(field, `${field} must be a string`);
  else if (raw.length > 5000) errors.add(field, `${field} may not be longer than 5000 characters`);
  else return raw;
  return null;
}

export function validateInvoice(body: Record<string, unknown>, rules: InvoiceRules): InvoiceInput {
  const errors = new FieldErrorList();
  const customerId = readCustomer(body.customer_id, rules, errors);
  const issueDate = readDate(body.issue_date, 'issue_date', errors);
  const dueDate = readDate(body.due_date, 'due_date', errors);
  const issue_date = issueDate ?? rules.today;
  const issueReadable = body.issue_date === undefined || body.issue_date === null || issueDate !== null;
  if (dueDate !== null && issueReadable && dueDate < issue_date) {
    errors.add('due_date', `due_date must be on or after issue_date (${issue_date})`);
  }
  const items: LineInput[] = [];
  if (body.items === undefined || body.items === null) errors.add('items', 'items is required: 1 to 200 lines');
  else if (!Array.isArray(body.items)) errors.add('items', 'items must be an array of 1 to 200 lines');
  else if (body.items.length === 0 || body.items.length > MAX_LINES) {
    errors.add('items', `items must have 1 to ${MAX_LINES} lines; it has ${body.items.length}`);
  } else
    body.items.forEach((raw, i) => {
      items.push(readLine(raw, i, rules, errors));
    });
  const notes = readText(body.notes, 'notes', errors);
  const terms = readText(body.terms, 'terms', errors);
  errors.throwIfAny();
  return { customerId, issue_date, due_date: dueDate ?? addDays(issue_date, 14), items, notes, terms };
}
