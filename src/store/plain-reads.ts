// The mirror's queries that read rows as they are stored (MirrorReader less its sums), the same SQL on every
// engine but for its dialect. Each engine adds the sums, which it does in its own exact arithmetic.

import { type Arg, type Cells, num, str } from './cells.js';
import { chunks, customerRows, invoiceRows, lineRows, paymentRows, productRows, quoteRows } from './rows.js';
import type {
  AllocationRow,
  CustomerFilter,
  InvoiceFilter,
  InvoiceRow,
  LineRow,
  MirroredKind,
  MirrorReader,
  PaymentFilter,
  PaymentRow,
  ProductFilter,
  ProductRow,
  QuoteFilter,
} from './types.js';
import { type Dialect, invoiceWhere, Where } from './where.js';

/** Rows as arrays of their columns, in the SELECT's order; `?` placeholders. */
export type RowsOf = (sql: string, args?: readonly Arg[]) => Promise<Cells[]>;

export type PlainReads = Omit<MirrorReader, 'lineSums' | 'invoiceSums' | 'owing'>;

/** What is owed's oldest invoices (OwingSums.oldest): the oldest due first, then by id, a page of them. */
export async function oldestOwed(rows: RowsOf, w: Where, q: { limit: number; offset?: number | undefined }): Promise<InvoiceRow[]> {
  const found = await rows(`SELECT ${invoiceRows.columns} FROM invoices${w} ORDER BY due_date, id LIMIT ? OFFSET ?`, [
    ...w.args,
    q.limit,
    q.offset ?? 0,
  ]);
  return found.map(invoiceRows.row);
}

/** Each payment's allocations, in their order. */
async function allocationsOf(rows: RowsOf, dialect: Dialect, paymentIds: readonly number[]): Promise<Map<number, AllocationRow[]>> {
  const allocations = new Map<number, AllocationRow[]>();
  for (const chunk of chunks(paymentIds)) {
    const w = new Where(dialect);
    w.in('payment_id', chunk);
    for (const [paymentId, invoiceId, invoiceNumber, amount] of await rows(
      `SELECT payment_id, invoice_id, invoice_number, amount FROM allocations${w} ORDER BY payment_id, position`,
      w.args,
    )) {
      const list = allocations.get(num(paymentId)) ?? [];
      list.push({ invoice_id: num(invoiceId), invoice_number: str(invoiceNumber), amount: str(amount) });
      allocations.set(num(paymentId), list);
    }
  }
  return allocations;
}

/** The lines of the invoices the filter picks (or of the given invoices), in invoice and position order. */
async function linesOf(rows: RowsOf, dialect: Dialect, filter: InvoiceFilter & { ids?: readonly number[] }): Promise<LineRow[]> {
  const columns = lineRows.columns
    .split(', ')
    .map((c) => `l.${c}`)
    .join(', ');
  const query = async (w: Where) =>
    (await rows(`SELECT ${columns} FROM lines l JOIN invoices i ON i.id = l.invoice_id${w} ORDER BY l.invoice_id, l.position`, w.args)).map(
      lineRows.row,
    );
  if (!filter.ids) return query(invoiceWhere(dialect, filter, 'i.'));
  const found: LineRow[] = [];
  for (const chunk of chunks([...filter.ids].sort((a, b) => a - b))) {
    const w = invoiceWhere(dialect, filter, 'i.');
    w.in('id', chunk);
    found.push(...(await query(w)));
  }
  return found;
}

/** Payments, each with its allocations. */
async function paymentsOf(rows: RowsOf, dialect: Dialect, filter: PaymentFilter): Promise<PaymentRow[]> {
  const w = new Where(dialect);
  if (filter.from) w.add('payment_date >= ?', filter.from);
  if (filter.to) w.add('payment_date <= ?', filter.to);
  if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
  const found = (await rows(`SELECT ${paymentRows.columns} FROM payments${w} ORDER BY id`, w.args)).map(paymentRows.row);
  const ids = found.map((p) => p.id);
  const allocations = await allocationsOf(rows, dialect, ids);
  return found.map((p): PaymentRow => ({ ...p, allocations: allocations.get(p.id) ?? [] }));
}

/** Products matching the filter (or the given ones), by id. */
async function productsOf(rows: RowsOf, dialect: Dialect, filter: ProductFilter): Promise<ProductRow[]> {
  const query = async (w: Where): Promise<ProductRow[]> =>
    (await rows(`SELECT ${productRows.columns} FROM products${w} ORDER BY id`, w.args)).map(productRows.row);
  const base = (): Where => {
    const w = new Where(dialect);
    w.match(filter.match, ['sku', 'barcode']);
    return w;
  };
  if (!filter.ids) return query(base());
  const found: ProductRow[] = [];
  for (const chunk of chunks(filter.ids)) {
    const w = base();
    w.in('id', chunk);
    found.push(...(await query(w)));
  }
  return found.sort((a, b) => a.id - b.id);
}

export function plainReads(rows: RowsOf, dialect: Dialect): PlainReads {
  return {
    async customers(filter: CustomerFilter = {}) {
      const w = new Where(dialect);
      w.match(filter.match, ['code', 'email', 'name']);
      return (await rows(`SELECT ${customerRows.columns} FROM customers${w} ORDER BY id`, w.args)).map(customerRows.row);
    },
    async customer(id) {
      const [r] = await rows(`SELECT ${customerRows.columns} FROM customers WHERE id = ?`, [id]);
      return r ? customerRows.row(r) : null;
    },
    async invoices(filter: InvoiceFilter = {}) {
      const w = invoiceWhere(dialect, filter);
      return (await rows(`SELECT ${invoiceRows.columns} FROM invoices${w} ORDER BY id`, w.args)).map(invoiceRows.row);
    },
    lines: (filter) => linesOf(rows, dialect, filter),
    async quotes(filter: QuoteFilter = {}) {
      const w = new Where(dialect);
      w.in('status', filter.statuses);
      if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
      if (filter.number !== undefined) w.add(dialect.equalsNoCase('number'), filter.number.trim());
      return (await rows(`SELECT ${quoteRows.columns} FROM quotes${w} ORDER BY id`, w.args)).map(quoteRows.row);
    },
    payments: (filter: PaymentFilter = {}) => paymentsOf(rows, dialect, filter),
    products: (filter: ProductFilter = {}) => productsOf(rows, dialect, filter),
    async productNames(ids) {
      const names = new Map<number, string>();
      for (const chunk of chunks(ids)) {
        const w = new Where(dialect);
        w.in('id', chunk);
        for (const [id, name] of await rows(`SELECT id, name FROM products${w}`, w.args)) names.set(num(id), str(name));
      }
      return names;
    },
    async raw(kind: MirroredKind, id: number) {
      const [r] = await rows(`SELECT raw FROM ${kind} WHERE id = ?`, [id]);
      return r ? (JSON.parse(str(r[0])) as Record<string, unknown>) : null;
    },
  };
}
