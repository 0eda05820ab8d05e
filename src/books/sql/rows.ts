// How the mirror's rows read back, the same on every engine: each kind's SELECT list and how its cells (an
// array in the SELECT's order) are named. Amounts stay the stored strings; ids and counts become numbers.
import { type Cell, type Cells, num, str, strOrNull } from '../../db/cells.js';
import type { CustomerRow, InvoiceRow, LineRow, PaymentRow, ProductRow, QuoteRow } from '../types.js';

// How each typed column reads back: as text, as text or null, or as a number (ids).
type Reading = 'text' | 'nullable' | 'number' | 'numberOrNull';
const read = {
  text: str,
  nullable: strOrNull,
  number: num,
  numberOrNull: (v: Cell | undefined) => (v === null || v === undefined ? null : num(v)),
} as const;

export interface RowReader<T> {
  /** The SELECT list, in the spec's order (`updated_at` is the `stamp` column). */
  columns: string;
  row: (r: Cells) => T;
}

/** A kind's row as a spec of [field, reading]: the columns to select and how to name what comes back. */
function rowReader<T>(spec: readonly (readonly [string, Reading])[]): RowReader<T> {
  return {
    columns: spec.map(([field]) => (field === 'updated_at' ? 'stamp' : field)).join(', '),
    row: (r) => {
      const row: Record<string, unknown> = {};
      spec.forEach(([field, reading], i) => {
        row[field] = read[reading](r[i]);
      });
      return row as T;
    },
  };
}

export const customerRows = rowReader<CustomerRow>([
  ['id', 'number'],
  ['code', 'text'],
  ['name', 'text'],
  ['email', 'nullable'],
  ['status', 'text'],
  ['updated_at', 'text'],
]);

export const invoiceRows = rowReader<InvoiceRow>([
  ['id', 'number'],
  ['number', 'text'],
  ['status', 'text'],
  ['customer_id', 'number'],
  ['customer_name', 'text'],
  ['issue_date', 'text'],
  ['due_date', 'text'],
  ['currency', 'text'],
  ['subtotal', 'text'],
  ['tax_total', 'text'],
  ['total', 'text'],
  ['balance', 'text'],
  ['sales_channel', 'nullable'],
  ['updated_at', 'text'],
]);

export const quoteRows = rowReader<QuoteRow>([
  ['id', 'number'],
  ['number', 'text'],
  ['status', 'text'],
  ['customer_id', 'number'],
  ['customer_name', 'text'],
  ['issue_date', 'text'],
  ['valid_until', 'text'],
  ['total', 'text'],
  ['currency', 'nullable'],
  ['accepted_at', 'nullable'],
  ['updated_at', 'text'],
]);

export const paymentRows = rowReader<Omit<PaymentRow, 'allocations'>>([
  ['id', 'number'],
  ['customer_id', 'number'],
  ['customer_name', 'text'],
  ['amount', 'text'],
  ['currency', 'text'],
  ['payment_date', 'text'],
  ['method', 'text'],
  ['reference', 'text'],
]);

export const lineRows = rowReader<LineRow>([
  ['invoice_id', 'number'],
  ['position', 'number'],
  ['description', 'text'],
  ['quantity', 'text'],
  ['unit_price', 'text'],
  ['tax_amount', 'text'],
  ['line_total', 'text'],
  ['product_id', 'numberOrNull'],
]);

export const PRODUCT_COLUMNS = 'id, name, sku, barcode, type, default_price, is_active, track_stock, low, stamp, raw';

/** A product's stock is read from its raw JSON (branches have no columns), and only when it has stock. */
export function productRow(r: Cells): ProductRow {
  const hasStock = r[8] !== null && r[8] !== undefined;
  const stock = hasStock ? ((JSON.parse(str(r[10])) as Record<string, unknown>).stock as Record<string, unknown> | null) : null;
  const branches = Array.isArray(stock?.branches) ? (stock.branches as Record<string, unknown>[]) : [];
  return {
    id: num(r[0]),
    name: str(r[1]),
    sku: strOrNull(r[2]),
    barcode: strOrNull(r[3]),
    type: str(r[4]),
    default_price: str(r[5]),
    is_active: num(r[6]) === 1,
    track_stock: num(r[7]) === 1,
    stock: stock
      ? {
          on_hand: String(stock.on_hand ?? ''),
          reorder_level: String(stock.reorder_level ?? ''),
          low: stock.low === true,
          branches: branches.map((b) => ({
            branch_id: Number(b.branch_id),
            branch: String(b.branch ?? ''),
            on_hand: String(b.on_hand ?? ''),
          })),
        }
      : null,
    updated_at: str(r[9]),
  };
}

const CHUNK = 500;
export function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}
