// The spec's record tables as checks, shared by the sandbox's contract tests: exact field sets, types,
// decimal formats, New Zealand offsets, and the open-points line arithmetic (half-up to 2 places).
import { expect } from 'vitest';
import { cents, DECIMAL_RE, isCalendarDate, isNzTimestamp, type Json, MONEY_RE, QUANTITY_RE, scaled, sortedKeys } from './sandbox-http.js';

export const INVOICE_STATUSES = ['draft', 'approved', 'issued', 'sent', 'viewed', 'part_paid', 'paid', 'overdue', 'void'];
export const QUOTE_STATUSES = ['draft', 'sent', 'viewed', 'accepted', 'declined', 'expired', 'converted', 'cancelled'];
export const PAYMENT_METHODS = ['cash', 'card', 'bank_transfer', 'cheque', 'other'];
export const RESOURCES = ['customers', 'invoices', 'quotes', 'payments', 'products'] as const;
export type Resource = (typeof RESOURCES)[number];

/** Unit prices: at least 2 places, at most the 4 that open-points allows. */
export const UNIT_PRICE_RE = /^\d+\.\d{2,4}$/;

/** Half-up to 2 places of quantity × unit_price, as whole cents. */
export function lineTotalCents(quantity: string, unitPrice: string): bigint {
  const exact = scaled(quantity, 6) * scaled(unitPrice, 4);
  return (exact + 5n * 10n ** 7n) / 10n ** 8n;
}

/** Half-up to 2 places of amount × rate (rate in percent, a whole number), as whole cents. */
export function taxCents(lineTotal: bigint, ratePercent: bigint): bigint {
  return (lineTotal * ratePercent + 50n) / 100n;
}

export const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';

// ---- the spec's tables, one checker per record ----

export function checkCustomer(c: Json): void {
  expect(sortedKeys(c)).toEqual(
    ['address', 'code', 'created_at', 'email', 'id', 'name', 'phone', 'status', 'tax_number', 'updated_at'].sort(),
  );
  expect(Number.isInteger(c.id)).toBe(true);
  expect(c.code).toMatch(/^CUS-\d{5}$/);
  expect(typeof c.name).toBe('string');
  for (const f of ['email', 'phone', 'tax_number']) expect(isStringOrNull(c[f])).toBe(true);
  expect(sortedKeys(c.address)).toEqual(['city', 'line1', 'line2', 'postal_code', 'region']);
  for (const v of Object.values(c.address)) expect(isStringOrNull(v)).toBe(true);
  expect(['active', 'archived']).toContain(c.status);
  expect(isNzTimestamp(c.created_at), `c.created_at: ${c.created_at}`).toBe(true);
  expect(isNzTimestamp(c.updated_at), `c.updated_at: ${c.updated_at}`).toBe(true);
  expect(Date.parse(c.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.created_at));
}

export const INVOICE_FIELDS = [
  'id',
  'number',
  'status',
  'customer',
  'issue_date',
  'due_date',
  'currency',
  'subtotal',
  'tax_total',
  'total',
  'balance',
  'sales_channel',
  'portal_url',
  'created_at',
  'updated_at',
];

export function checkInvoice(inv: Json, withItems: boolean, baseUrl: string): void {
  expect(sortedKeys(inv)).toEqual((withItems ? [...INVOICE_FIELDS, 'items'] : INVOICE_FIELDS).sort());
  expect(Number.isInteger(inv.id)).toBe(true);
  expect(inv.number).toMatch(/^INV-\d{5}$/);
  expect(INVOICE_STATUSES).toContain(inv.status);
  expect(sortedKeys(inv.customer)).toEqual(['id', 'name']);
  expect(Number.isInteger(inv.customer.id)).toBe(true);
  expect(typeof inv.customer.name).toBe('string');
  expect(isCalendarDate(inv.issue_date), `inv.issue_date: ${inv.issue_date}`).toBe(true);
  expect(isCalendarDate(inv.due_date), `inv.due_date: ${inv.due_date}`).toBe(true);
  expect(inv.due_date >= inv.issue_date).toBe(true);
  expect(inv.currency).toMatch(/^[A-Z]{3}$/);
  for (const f of ['subtotal', 'tax_total', 'total', 'balance']) expect(inv[f]).toMatch(MONEY_RE);
  expect(cents(inv.subtotal) + cents(inv.tax_total)).toBe(cents(inv.total));
  expect(cents(inv.balance) >= 0n && cents(inv.balance) <= cents(inv.total)).toBe(true);
  if (inv.status === 'paid') expect(inv.balance).toBe('0.00');
  if (inv.status === 'draft') expect(inv.balance).toBe(inv.total);
  if (inv.status === 'part_paid') expect(cents(inv.balance) > 0n && cents(inv.balance) < cents(inv.total)).toBe(true);
  expect(isStringOrNull(inv.sales_channel)).toBe(true);
  expect(typeof inv.portal_url).toBe('string');
  expect(inv.portal_url).toMatch(new RegExp(`^${baseUrl}/portal/invoices/[A-Za-z0-9_-]+$`));
  expect(isNzTimestamp(inv.created_at), `inv.created_at: ${inv.created_at}`).toBe(true);
  expect(isNzTimestamp(inv.updated_at), `inv.updated_at: ${inv.updated_at}`).toBe(true);
}

/** A line as the spec's table gives it, with the open-points arithmetic (half-up to 2 places). */
export function checkLine(line: Json): void {
  expect(sortedKeys(line)).toEqual(['description', 'line_total', 'product_id', 'quantity', 'tax_amount', 'unit_price']);
  expect(typeof line.description).toBe('string');
  expect(line.quantity).toMatch(QUANTITY_RE);
  expect(line.unit_price).toMatch(UNIT_PRICE_RE);
  expect(line.tax_amount).toMatch(MONEY_RE);
  expect(line.line_total).toMatch(MONEY_RE);
  expect(line.product_id === null || Number.isInteger(line.product_id)).toBe(true);
  expect(cents(line.line_total)).toBe(lineTotalCents(line.quantity, line.unit_price));
  expect([0n, taxCents(cents(line.line_total), 15n)]).toContain(cents(line.tax_amount));
}

export function checkQuote(q: Json): void {
  expect(sortedKeys(q)).toEqual(
    ['accepted_at', 'customer', 'id', 'issue_date', 'number', 'status', 'total', 'updated_at', 'valid_until'].sort(),
  );
  expect(Number.isInteger(q.id)).toBe(true);
  expect(q.number).toMatch(/^QUO-\d{5}$/);
  expect(QUOTE_STATUSES).toContain(q.status);
  expect(sortedKeys(q.customer)).toEqual(['id', 'name']);
  expect(Number.isInteger(q.customer.id)).toBe(true);
  expect(isCalendarDate(q.issue_date), `q.issue_date: ${q.issue_date}`).toBe(true);
  expect(isCalendarDate(q.valid_until), `q.valid_until: ${q.valid_until}`).toBe(true);
  expect(q.total).toMatch(MONEY_RE);
  expect(q.accepted_at === null || isNzTimestamp(q.accepted_at)).toBe(true);
  if (q.status === 'accepted') expect(q.accepted_at).not.toBeNull();
  if (['draft', 'sent', 'viewed'].includes(q.status)) expect(q.accepted_at).toBeNull();
  expect(isNzTimestamp(q.updated_at), `q.updated_at: ${q.updated_at}`).toBe(true);
}

export function checkPayment(p: Json): void {
  expect(sortedKeys(p)).toEqual(
    ['allocations', 'amount', 'created_at', 'currency', 'customer', 'id', 'method', 'payment_date', 'reference'].sort(),
  );
  expect(Number.isInteger(p.id)).toBe(true);
  expect(sortedKeys(p.customer)).toEqual(['id', 'name']);
  expect(p.amount).toMatch(MONEY_RE);
  expect(cents(p.amount) > 0n).toBe(true);
  expect(p.currency).toMatch(/^[A-Z]{3}$/);
  expect(isCalendarDate(p.payment_date), `p.payment_date: ${p.payment_date}`).toBe(true);
  expect(PAYMENT_METHODS).toContain(p.method);
  expect(typeof p.reference).toBe('string');
  expect(Array.isArray(p.allocations)).toBe(true);
  let allocated = 0n;
  for (const a of p.allocations) {
    expect(sortedKeys(a)).toEqual(['amount', 'invoice_id', 'invoice_number']);
    expect(Number.isInteger(a.invoice_id)).toBe(true);
    expect(a.invoice_number).toMatch(/^INV-\d{5}$/);
    expect(a.amount).toMatch(MONEY_RE);
    allocated += cents(a.amount);
  }
  expect(allocated <= cents(p.amount)).toBe(true);
  expect(isNzTimestamp(p.created_at), `p.created_at: ${p.created_at}`).toBe(true);
}

export function checkProduct(p: Json): void {
  expect(sortedKeys(p)).toEqual(
    ['barcode', 'default_price', 'description', 'id', 'is_active', 'name', 'sku', 'stock', 'track_stock', 'type', 'updated_at'].sort(),
  );
  expect(Number.isInteger(p.id)).toBe(true);
  expect(typeof p.name).toBe('string');
  expect(isStringOrNull(p.sku)).toBe(true);
  expect(isStringOrNull(p.barcode)).toBe(true);
  expect(['product', 'service']).toContain(p.type);
  expect(typeof p.description).toBe('string');
  // A unit price: like an invoice line's unit_price it may carry up to 4 places (open-points "Records").
  expect(p.default_price).toMatch(UNIT_PRICE_RE);
  expect(typeof p.is_active).toBe('boolean');
  expect(typeof p.track_stock).toBe('boolean');
  expect(isNzTimestamp(p.updated_at), `p.updated_at: ${p.updated_at}`).toBe(true);
  if (p.type === 'service' || !p.track_stock) {
    expect(p.stock).toBeNull();
    return;
  }
  expect(sortedKeys(p.stock)).toEqual(['branches', 'low', 'on_hand', 'reorder_level']);
  expect(p.stock.on_hand).toMatch(DECIMAL_RE);
  expect(p.stock.reorder_level).toMatch(DECIMAL_RE);
  expect(typeof p.stock.low).toBe('boolean');
  expect(p.stock.branches.length).toBe(3);
  let sum = 0n;
  for (const b of p.stock.branches) {
    expect(sortedKeys(b)).toEqual(['branch', 'branch_id', 'on_hand']);
    expect(Number.isInteger(b.branch_id)).toBe(true);
    expect(typeof b.branch).toBe('string');
    expect(b.on_hand).toMatch(DECIMAL_RE);
    sum += scaled(b.on_hand, 6);
  }
  expect(scaled(p.stock.on_hand, 6)).toBe(sum);
  expect(p.stock.low).toBe(sum <= scaled(p.stock.reorder_level, 6));
}

export const CHECKERS: Record<Resource, (record: Json, baseUrl: string) => void> = {
  customers: checkCustomer,
  invoices: (inv, baseUrl) => checkInvoice(inv, false, baseUrl),
  quotes: checkQuote,
  payments: checkPayment,
  products: checkProduct,
};
