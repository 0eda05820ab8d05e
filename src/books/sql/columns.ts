// A record as the service sent it, split into the typed columns the mirror's queries filter on, the same on
// every engine; an engine adds columns of its own for exact sums (SQLite whole units, Postgres numeric).
// Amounts and dates stay the service's strings; ids are integers; a missing field is null. The raw JSON is
// kept beside them, so fields we do not know survive.
import type { Rec } from '../record.js';
import type { MirroredKind } from '../types.js';

export type Cell = string | number | null;

const text = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : String(v));
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const flag = (v: unknown): number => (v === true ? 1 : 0);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {});

/** The typed columns every engine has for each kind, in order (after `id`; `stamp` and `raw` follow them). */
export const TYPED_COLUMNS: Record<MirroredKind, readonly string[]> = {
  customers: ['code', 'name', 'email', 'status'],
  invoices: [
    'number',
    'status',
    'customer_id',
    'customer_name',
    'issue_date',
    'due_date',
    'currency',
    'subtotal',
    'tax_total',
    'total',
    'balance',
    'sales_channel',
  ],
  quotes: ['number', 'status', 'customer_id', 'customer_name', 'issue_date', 'valid_until', 'total', 'currency', 'accepted_at'],
  payments: ['customer_id', 'customer_name', 'amount', 'currency', 'payment_date', 'method', 'reference'],
  products: ['name', 'sku', 'barcode', 'type', 'default_price', 'is_active', 'track_stock', 'on_hand', 'reorder_level', 'low'],
};

/** The invoice amounts an engine sums, in the order they also come at the end of typedCells' invoice cells. */
export const SUMMED_INVOICE_AMOUNTS = ['balance', 'subtotal', 'tax_total', 'total'] as const;

/** Columns that hold integers (the rest hold text, or an engine's own types). */
export const INTEGER_COLUMNS = new Set([
  'customer_id',
  'is_active',
  'track_stock',
  'low',
  'product_id',
  'invoice_id',
  'position',
  'payment_id',
]);

export function typedCells(kind: MirroredKind, r: Rec): Cell[] {
  const customer = obj(r.customer);
  switch (kind) {
    case 'customers':
      return [text(r.code), text(r.name), text(r.email), text(r.status)];
    case 'invoices':
      return [
        text(r.number),
        text(r.status),
        int(customer.id),
        text(customer.name),
        text(r.issue_date),
        text(r.due_date),
        text(r.currency),
        text(r.subtotal),
        text(r.tax_total),
        text(r.total),
        text(r.balance),
        text(r.sales_channel),
      ];
    case 'quotes':
      return [
        text(r.number),
        text(r.status),
        int(customer.id),
        text(customer.name),
        text(r.issue_date),
        text(r.valid_until),
        text(r.total),
        text(r.currency),
        text(r.accepted_at),
      ];
    case 'payments':
      return [
        int(customer.id),
        text(customer.name),
        text(r.amount),
        text(r.currency),
        text(r.payment_date),
        text(r.method),
        text(r.reference),
      ];
    case 'products': {
      const stock = r.stock === null || r.stock === undefined ? null : obj(r.stock);
      return [
        text(r.name),
        text(r.sku),
        text(r.barcode),
        text(r.type),
        text(r.default_price),
        flag(r.is_active),
        flag(r.track_stock),
        stock ? text(stock.on_hand) : null,
        stock ? text(stock.reorder_level) : null,
        stock ? flag(stock.low) : null,
      ];
    }
  }
}

/** An invoice's amounts that the engines sum, as the service wrote them (SUMMED_INVOICE_AMOUNTS' order). */
export const summedAmountsOf = (r: Rec): (string | null)[] => SUMMED_INVOICE_AMOUNTS.map((a) => text(r[a]));

/** A payment's allocations as rows: invoice_id, invoice_number, amount. */
export function allocationsOf(payment: Rec): [number | null, string | null, string | null][] {
  const list = Array.isArray(payment.allocations) ? (payment.allocations as unknown[]) : [];
  return list.map((a) => [int(obj(a).invoice_id), text(obj(a).invoice_number), text(obj(a).amount)]);
}

/** An invoice's lines (`items`) as rows: description, quantity, unit_price, tax_amount, line_total, product_id. */
export function linesOf(items: unknown): Cell[][] {
  const list = Array.isArray(items) ? (items as unknown[]) : [];
  return list.map((l) => {
    const o = obj(l);
    return [text(o.description), text(o.quantity), text(o.unit_price), text(o.tax_amount), text(o.line_total), int(o.product_id)];
  });
}
