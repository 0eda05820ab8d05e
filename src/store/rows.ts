// How the mirror's rows read back, the same on every engine: each table's SELECT list and how its cells (an
// array in the SELECT's order) are named, both from the table's definition (tables.ts). Amounts stay the
// stored strings; ids and counts become numbers.
import { type Cell, type Cells, num, str } from './cells.js';
import { CUSTOMERS, INVOICES, type KindTable, LINES, PAYMENTS, PRODUCTS, QUOTES, type Table } from './tables.js';
import type { CustomerRow, InvoiceRow, LineRow, PaymentRow, ProductRow, QuoteRow } from './types.js';

export interface RowReader<T> {
  /** The SELECT list, in the row's order (`updated_at` is the `stamp` column). */
  columns: string;
  row: (r: Cells) => T;
}

/** A table's rows: its key (numbers), the columns it shows, and the stamp as `updated_at` when it carries it. */
function rowReader<T>(table: Table | KindTable): RowReader<T> {
  const fields: (readonly [string, (cell: Cell | undefined) => unknown])[] = [
    ...table.key.map((k) => [k, num] as const),
    ...Object.entries(table.columns).flatMap(([name, c]) => (c.read === null ? [] : [[name, c.read] as const])),
    ...('stamped' in table && table.stamped ? [['updated_at', str] as const] : []),
  ];
  return {
    columns: fields.map(([field]) => (field === 'updated_at' ? 'stamp' : field)).join(', '),
    row: (r) => {
      const row: Record<string, unknown> = {};
      fields.forEach(([field, read], i) => {
        row[field] = read(r[i]);
      });
      return row as T;
    },
  };
}

export const customerRows = rowReader<CustomerRow>(CUSTOMERS);
export const invoiceRows = rowReader<InvoiceRow>(INVOICES);
export const quoteRows = rowReader<QuoteRow>(QUOTES);
export const paymentRows = rowReader<Omit<PaymentRow, 'allocations'>>(PAYMENTS);
export const lineRows = rowReader<LineRow>(LINES);

const products = rowReader<Omit<ProductRow, 'stock'>>(PRODUCTS);
const stockAt = products.columns.split(', ').length;

/** A product's stock is read from its raw JSON (branches have no columns), and only when it has stock. */
export const productRows: RowReader<ProductRow> = {
  columns: `${products.columns}, low, raw`,
  row(r) {
    const { updated_at, ...base } = products.row(r);
    const hasStock = r[stockAt] !== null && r[stockAt] !== undefined;
    const stock = hasStock ? ((JSON.parse(str(r[stockAt + 1])) as Record<string, unknown>).stock as Record<string, unknown> | null) : null;
    const branches = Array.isArray(stock?.branches) ? (stock.branches as Record<string, unknown>[]) : [];
    return {
      ...base,
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
      updated_at,
    };
  },
};

const CHUNK = 500;
export function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}
