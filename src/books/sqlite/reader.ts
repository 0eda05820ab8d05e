// The mirror's queries (MirrorReader) over SQLite: filters in SQL, amounts returned as the stored strings.
// Rows come back as arrays in the SELECT's column order and are named here, once per row.
import { COLUMNS } from '../rows.js';
import type {
  AllocationRow,
  CustomerFilter,
  CustomerRow,
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
  QuoteRow,
  TextMatch,
} from '../types.js';
import type { Db, SqlValue } from './db.js';

type Cells = SqlValue[];
const str = (v: SqlValue | undefined): string => (v === null || v === undefined ? '' : String(v));
const strOrNull = (v: SqlValue | undefined): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: SqlValue | undefined): number => Number(v);

class Where {
  readonly parts: string[] = [];
  readonly args: SqlValue[] = [];
  constructor(private readonly prefix = '') {}
  add(sql: string, ...args: SqlValue[]): void {
    this.parts.push(sql);
    this.args.push(...args);
  }
  in(column: string, values: readonly (string | number)[] | undefined, negate = false): void {
    if (!values) return;
    if (values.length === 0) return void (negate ? undefined : this.parts.push('0'));
    this.add(`${this.prefix}${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`, ...values);
  }
  /** One of the identifiers equals the text, or the name holds every word (see TextMatch). */
  match(m: TextMatch | undefined, identifiers: readonly string[]): void {
    // SQLite folds letter case of ASCII only: a text beyond it is left to the caller's own comparison.
    if (!m || !/^[\x20-\x7e]*$/.test(m.equals)) return;
    const equal = identifiers.map((c) => `trim(${c}) = ? COLLATE NOCASE`);
    const ascii = m.words.filter((w) => /^[\x20-\x7e]+$/.test(w));
    const named = ascii.length === 0 ? '1' : ascii.map(() => "name LIKE ? ESCAPE '\\'").join(' AND ');
    this.add(`(${[...equal, `(${named})`].join(' OR ')})`, ...identifiers.map(() => m.equals.trim()), ...ascii.map((w) => `%${w.replace(/[\\%_]/g, '\\$&')}%`));
  }
  toString(): string {
    return this.parts.length > 0 ? ` WHERE ${this.parts.join(' AND ')}` : '';
  }
}

function invoiceWhere(filter: InvoiceFilter, prefix = ''): Where {
  const w = new Where(prefix);
  const c = (column: string): string => `${prefix}${column}`;
  if (filter.issuedFrom) w.add(`${c('issue_date')} >= ?`, filter.issuedFrom);
  if (filter.issuedTo) w.add(`${c('issue_date')} <= ?`, filter.issuedTo);
  w.in('status', filter.statuses);
  w.in('status', filter.excludeStatuses, true);
  // Balances are decimal strings: "above zero" is any digit other than 0 and no minus sign.
  if (filter.receivable) w.add(`${c('status')} NOT IN ('draft', 'void') AND ${c('balance')} NOT LIKE '-%' AND ${c('balance')} GLOB '*[1-9]*'`);
  if (filter.customerId !== undefined) w.add(`${c('customer_id')} = ?`, filter.customerId);
  if (filter.number !== undefined) w.add(`${c('number')} = ? COLLATE NOCASE`, filter.number.trim());
  return w;
}

const customerRow = (r: Cells): CustomerRow => ({
  id: num(r[0]),
  code: str(r[1]),
  name: str(r[2]),
  email: strOrNull(r[3]),
  status: str(r[4]),
  updated_at: str(r[5]),
});

const invoiceRow = (r: Cells): InvoiceRow => ({
  id: num(r[0]),
  number: str(r[1]),
  status: str(r[2]),
  customer_id: num(r[3]),
  customer_name: str(r[4]),
  issue_date: str(r[5]),
  due_date: str(r[6]),
  currency: str(r[7]),
  subtotal: str(r[8]),
  tax_total: str(r[9]),
  total: str(r[10]),
  balance: str(r[11]),
  sales_channel: strOrNull(r[12]),
  updated_at: str(r[13]),
});

const quoteRow = (r: Cells): QuoteRow => ({
  id: num(r[0]),
  number: str(r[1]),
  status: str(r[2]),
  customer_id: num(r[3]),
  customer_name: str(r[4]),
  issue_date: str(r[5]),
  valid_until: str(r[6]),
  total: str(r[7]),
  currency: strOrNull(r[8]),
  accepted_at: strOrNull(r[9]),
  updated_at: str(r[10]),
});

const lineRow = (r: Cells): LineRow => ({
  invoice_id: num(r[0]),
  position: num(r[1]),
  description: str(r[2]),
  quantity: str(r[3]),
  unit_price: str(r[4]),
  tax_amount: str(r[5]),
  line_total: str(r[6]),
  product_id: r[7] === null || r[7] === undefined ? null : num(r[7]),
});

const PRODUCT_COLUMNS = 'id, name, sku, barcode, type, default_price, is_active, track_stock, low, stamp, raw';

/** A product's stock is read from its raw JSON (branches have no columns), and only when it has stock. */
function productRow(r: Cells): ProductRow {
  const hasStock = r[8] !== null && r[8] !== undefined;
  const stock = hasStock ? ((JSON.parse(str(r[10])) as Record<string, unknown>)['stock'] as Record<string, unknown> | null) : null;
  const branches = Array.isArray(stock?.['branches']) ? (stock['branches'] as Record<string, unknown>[]) : [];
  return {
    id: num(r[0]),
    name: str(r[1]),
    sku: strOrNull(r[2]),
    barcode: strOrNull(r[3]),
    type: str(r[4]),
    default_price: str(r[5]),
    is_active: r[6] === 1,
    track_stock: r[7] === 1,
    stock: stock
      ? {
          on_hand: String(stock['on_hand'] ?? ''),
          reorder_level: String(stock['reorder_level'] ?? ''),
          low: stock['low'] === true,
          branches: branches.map((b) => ({ branch_id: Number(b['branch_id']), branch: String(b['branch'] ?? ''), on_hand: String(b['on_hand'] ?? '') })),
        }
      : null,
    updated_at: str(r[9]),
  };
}

/** The typed columns of a kind, in the order its row mapper reads them. */
const typed = (kind: Exclude<MirroredKind, 'products'>): string => ['id', ...COLUMNS[kind], 'stamp'].join(', ');

const CHUNK = 500;
function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

export function sqliteReader(db: Db): MirrorReader {
  function allocationsOf(paymentIds: readonly number[]): Map<number, AllocationRow[]> {
    const allocations = new Map<number, AllocationRow[]>();
    for (const chunk of chunks(paymentIds)) {
      const w = new Where();
      w.in('payment_id', chunk);
      for (const [paymentId, invoiceId, invoiceNumber, amount] of db.rows(`SELECT payment_id, invoice_id, invoice_number, amount FROM allocations${w} ORDER BY payment_id, position`, w.args)) {
        const list = allocations.get(num(paymentId)) ?? [];
        list.push({ invoice_id: num(invoiceId), invoice_number: str(invoiceNumber), amount: str(amount) });
        allocations.set(num(paymentId), list);
      }
    }
    return allocations;
  }

  return {
    async customers(filter: CustomerFilter = {}) {
      const w = new Where();
      w.match(filter.match, ['code', 'email', 'name']);
      return db.rows(`SELECT ${typed('customers')} FROM customers${w} ORDER BY id`, w.args).map(customerRow);
    },
    async customer(id) {
      const [r] = db.rows(`SELECT ${typed('customers')} FROM customers WHERE id = ?`, [id]);
      return r ? customerRow(r) : null;
    },
    async invoices(filter: InvoiceFilter = {}) {
      const w = invoiceWhere(filter);
      return db.rows(`SELECT ${typed('invoices')} FROM invoices${w} ORDER BY id`, w.args).map(invoiceRow);
    },
    async lines(filter) {
      const columns = 'l.invoice_id, l.position, l.description, l.quantity, l.unit_price, l.tax_amount, l.line_total, l.product_id';
      const query = (w: Where): LineRow[] =>
        db.rows(`SELECT ${columns} FROM lines l JOIN invoices i ON i.id = l.invoice_id${w} ORDER BY l.invoice_id, l.position`, w.args).map(lineRow);
      if (!filter.ids) return query(invoiceWhere(filter, 'i.'));
      const found: LineRow[] = [];
      for (const chunk of chunks([...filter.ids].sort((a, b) => a - b))) {
        const w = invoiceWhere(filter, 'i.');
        w.in('id', chunk);
        found.push(...query(w));
      }
      return found;
    },
    async quotes(filter: QuoteFilter = {}) {
      const w = new Where();
      w.in('status', filter.statuses);
      if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
      if (filter.number !== undefined) w.add('number = ? COLLATE NOCASE', filter.number.trim());
      return db.rows(`SELECT ${typed('quotes')} FROM quotes${w} ORDER BY id`, w.args).map(quoteRow);
    },
    async payments(filter: PaymentFilter = {}) {
      const w = new Where();
      if (filter.from) w.add('payment_date >= ?', filter.from);
      if (filter.to) w.add('payment_date <= ?', filter.to);
      if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
      const found = db.rows(`SELECT ${typed('payments')} FROM payments${w} ORDER BY id`, w.args);
      const allocations = allocationsOf(found.map((r) => num(r[0])));
      return found.map(
        (r): PaymentRow => ({
          id: num(r[0]),
          customer_id: num(r[1]),
          customer_name: str(r[2]),
          amount: str(r[3]),
          currency: str(r[4]),
          payment_date: str(r[5]),
          method: str(r[6]),
          reference: str(r[7]),
          allocations: allocations.get(num(r[0])) ?? [],
        }),
      );
    },
    async products(filter: ProductFilter = {}) {
      const query = (w: Where): ProductRow[] => db.rows(`SELECT ${PRODUCT_COLUMNS} FROM products${w} ORDER BY id`, w.args).map(productRow);
      const base = (): Where => {
        const w = new Where();
        w.match(filter.match, ['sku', 'barcode']);
        return w;
      };
      if (!filter.ids) return query(base());
      const found: ProductRow[] = [];
      for (const chunk of chunks(filter.ids)) {
        const w = base();
        w.in('id', chunk);
        found.push(...query(w));
      }
      return found.sort((a, b) => a.id - b.id);
    },
    async raw(kind: MirroredKind, id: number) {
      const [r] = db.rows(`SELECT raw FROM ${kind} WHERE id = ?`, [id]);
      return r ? (JSON.parse(str(r[0])) as Record<string, unknown>) : null;
    },
  };
}
