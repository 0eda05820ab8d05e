// The schemas take any reasonable answer: unknown fields kept, unknown statuses accepted, null in meta,
// money left as decimal strings; and refuse what cannot be read (a float where money belongs, no id).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProductDetailSchema } from '../../src/api/endpoints/reads.js';
import {
  CustomerPageSchema,
  CustomerSchema,
  InvoicePageSchema,
  InvoiceSchema,
  PaymentSchema,
  ProductSchema,
  QuoteSchema,
  SessionGrantSchema,
} from '../../src/api/schemas.js';

const customer = {
  id: 1,
  code: 'CUS-00001',
  name: 'Kauri Cafe',
  email: null,
  phone: '+64 9 555 0101',
  tax_number: null,
  address: { line1: '1 Queen St', line2: null, city: 'Auckland', region: null, postal_code: '1010' },
  status: 'active',
  created_at: '2025-01-02T09:00:00+13:00',
  updated_at: '2025-01-02T09:00:00+13:00',
};

const invoice = {
  id: 7,
  number: 'INV-00007',
  status: 'draft',
  customer: { id: 1, name: 'Kauri Cafe' },
  issue_date: '2026-03-01',
  due_date: '2026-03-15',
  currency: 'NZD',
  subtotal: '100.00',
  tax_total: '15.00',
  total: '115.00',
  balance: '115.00',
  sales_channel: null,
  portal_url: 'https://x/portal/invoices/abc',
  created_at: '2026-03-01T10:00:00+13:00',
  updated_at: '2026-03-01T10:00:00+13:00',
  items: [
    { description: 'Widget', quantity: '1.000000', unit_price: '100.00', tax_amount: '15.00', line_total: '100.00', product_id: null },
  ],
};

describe('schemas', () => {
  it('keep unknown fields, at the top and nested', () => {
    const parsed = InvoiceSchema.parse({ ...invoice, brand_new: { a: 1 }, customer: { id: 1, name: 'K', tier: 'gold' } });
    expect(parsed.brand_new).toEqual({ a: 1 });
    expect((parsed.customer as Record<string, unknown>).tier).toBe('gold');
  });

  it('accept status values the spec does not list', () => {
    expect(InvoiceSchema.parse({ ...invoice, status: 'disputed' }).status).toBe('disputed');
    expect(CustomerSchema.parse({ ...customer, status: 'merged' }).status).toBe('merged');
  });

  it('keep money as exact decimal strings, and refuse floats', () => {
    const parsed = InvoiceSchema.parse({ ...invoice, total: '12345678901234567890.123456' });
    expect(parsed.total).toBe('12345678901234567890.123456');
    expect(InvoiceSchema.safeParse({ ...invoice, total: 115.0 }).success).toBe(false);
  });

  it('accept null and missing numbers in meta, and missing links', () => {
    const page = { data: [customer], meta: { current_page: 1, from: null, to: null, last_page: null, total: null, per_page: 25 } };
    expect(CustomerPageSchema.parse(page).data).toHaveLength(1);
    expect(CustomerPageSchema.parse({ data: [] }).data).toEqual([]);
    expect(CustomerPageSchema.parse({ data: [], links: null, meta: null }).meta).toBeNull();
  });

  it('refuse a record without an id', () => {
    const { id: _id, ...rest } = invoice;
    expect(InvoicePageSchema.safeParse({ data: [rest] }).success).toBe(false);
  });

  it('read a single product leniently, since its shape is not documented', () => {
    expect(ProductDetailSchema.parse({ id: 3, name: 'Blue widget', extra: true })).toMatchObject({ id: 3, extra: true });
  });

  it('read every record kind', () => {
    expect(
      QuoteSchema.parse({
        id: 1,
        number: 'QUO-1',
        status: 'sent',
        customer: { id: 1, name: 'K' },
        issue_date: '2026-01-01',
        valid_until: '2026-02-01',
        total: '1.00',
        accepted_at: null,
        updated_at: 't',
      }).id,
    ).toBe(1);
    expect(
      PaymentSchema.parse({
        id: 1,
        customer: { id: 1, name: 'K' },
        amount: '5.00',
        currency: 'NZD',
        payment_date: '2026-01-01',
        method: 'crypto',
        reference: 'r',
        allocations: [{ invoice_id: 7, invoice_number: 'INV-7', amount: '5.00' }],
        created_at: 't',
      }).method,
    ).toBe('crypto');
    expect(
      ProductSchema.parse({
        id: 1,
        name: 'W',
        sku: null,
        barcode: null,
        type: 'bundle',
        description: '',
        default_price: '9.50',
        is_active: true,
        track_stock: true,
        stock: {
          on_hand: '3.000000',
          reorder_level: '5.000000',
          low: true,
          branches: [{ branch_id: 1, branch: 'North', on_hand: '3.000000' }],
        },
        updated_at: 't',
      }).type,
    ).toBe('bundle');
    expect(SessionGrantSchema.parse({ access_token: 'svcat_x', expires_in: 3600 }).scopes).toBeUndefined();
  });

  it('convert to JSON Schema, for MCP output schemas', () => {
    expect(() => z.toJSONSchema(InvoiceSchema)).not.toThrow();
    expect(() => z.toJSONSchema(CustomerPageSchema)).not.toThrow();
  });
});
