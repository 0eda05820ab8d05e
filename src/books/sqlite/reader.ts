// The mirror's queries (MirrorReader) over SQLite: filters in SQL, amounts returned as the stored strings.
// Rows come back as arrays in the SELECT's column order and are named here, once per row.
import type {
  AllocationRow,
  CurrencySums,
  CustomerFilter,
  CustomerRow,
  InvoiceFilter,
  InvoiceRow,
  LineRow,
  LineSums,
  MirroredKind,
  MirrorReader,
  PaymentFilter,
  PaymentRow,
  ProductFilter,
  ProductLineSums,
  ProductRow,
  QuoteFilter,
  QuoteRow,
  TextMatch,
} from '../types.js';
import type { Db, SqlValue } from './db.js';
import { fromScaled } from './exact-sums.js';
import { receivable } from './schema.js';

type Cells = SqlValue[];

/** SQLite's sum() stops with "integer overflow" rather than round: then the caller sums the rows itself. */
function exactly<T>(read: () => T): T | null {
  try {
    return read();
  } catch (err) {
    if (/integer overflow/i.test(String(err))) return null;
    throw err;
  }
}
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
    this.add(
      `(${[...equal, `(${named})`].join(' OR ')})`,
      ...identifiers.map(() => m.equals.trim()),
      ...ascii.map((w) => `%${w.replace(/[\\%_]/g, '\\$&')}%`),
    );
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
  if (filter.receivable) w.add(receivable(prefix));
  if (filter.customerId !== undefined) w.add(`${c('customer_id')} = ?`, filter.customerId);
  if (filter.number !== undefined) w.add(`${c('number')} = ? COLLATE NOCASE`, filter.number.trim());
  return w;
}

// How each typed column reads back: as text, as text or null, or as a number (ids).
type Reading = 'text' | 'nullable' | 'number' | 'numberOrNull';
const read = {
  text: str,
  nullable: strOrNull,
  number: num,
  numberOrNull: (v: SqlValue | undefined) => (v === null || v === undefined ? null : num(v)),
} as const;

interface RowReader<T> {
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

const customerRows = rowReader<CustomerRow>([
  ['id', 'number'],
  ['code', 'text'],
  ['name', 'text'],
  ['email', 'nullable'],
  ['status', 'text'],
  ['updated_at', 'text'],
]);

const invoiceRows = rowReader<InvoiceRow>([
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

const quoteRows = rowReader<QuoteRow>([
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

const paymentRows = rowReader<Omit<PaymentRow, 'allocations'>>([
  ['id', 'number'],
  ['customer_id', 'number'],
  ['customer_name', 'text'],
  ['amount', 'text'],
  ['currency', 'text'],
  ['payment_date', 'text'],
  ['method', 'text'],
  ['reference', 'text'],
]);

const lineRows = rowReader<LineRow>([
  ['invoice_id', 'number'],
  ['position', 'number'],
  ['description', 'text'],
  ['quantity', 'text'],
  ['unit_price', 'text'],
  ['tax_amount', 'text'],
  ['line_total', 'text'],
  ['product_id', 'numberOrNull'],
]);

const PRODUCT_COLUMNS = 'id, name, sku, barcode, type, default_price, is_active, track_stock, low, stamp, raw';

/** A product's stock is read from its raw JSON (branches have no columns), and only when it has stock. */
function productRow(r: Cells): ProductRow {
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
    is_active: r[6] === 1,
    track_stock: r[7] === 1,
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
function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

export function sqliteReader(db: Db): MirrorReader {
  function allocationsOf(paymentIds: readonly number[]): Map<number, AllocationRow[]> {
    const allocations = new Map<number, AllocationRow[]>();
    for (const chunk of chunks(paymentIds)) {
      const w = new Where();
      w.in('payment_id', chunk);
      for (const [paymentId, invoiceId, invoiceNumber, amount] of db.rows(
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

  return {
    async customers(filter: CustomerFilter = {}) {
      const w = new Where();
      w.match(filter.match, ['code', 'email', 'name']);
      return db.rows(`SELECT ${customerRows.columns} FROM customers${w} ORDER BY id`, w.args).map(customerRows.row);
    },
    async customer(id) {
      const [r] = db.rows(`SELECT ${customerRows.columns} FROM customers WHERE id = ?`, [id]);
      return r ? customerRows.row(r) : null;
    },
    async invoices(filter: InvoiceFilter = {}) {
      const w = invoiceWhere(filter);
      return db.rows(`SELECT ${invoiceRows.columns} FROM invoices${w} ORDER BY id`, w.args).map(invoiceRows.row);
    },
    async lines(filter) {
      const columns = lineRows.columns
        .split(', ')
        .map((c) => `l.${c}`)
        .join(', ');
      const query = (w: Where): LineRow[] =>
        db
          .rows(`SELECT ${columns} FROM lines l JOIN invoices i ON i.id = l.invoice_id${w} ORDER BY l.invoice_id, l.position`, w.args)
          .map(lineRows.row);
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
      return db.rows(`SELECT ${quoteRows.columns} FROM quotes${w} ORDER BY id`, w.args).map(quoteRows.row);
    },
    async payments(filter: PaymentFilter = {}) {
      const w = new Where();
      if (filter.from) w.add('payment_date >= ?', filter.from);
      if (filter.to) w.add('payment_date <= ?', filter.to);
      if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
      const found = db.rows(`SELECT ${paymentRows.columns} FROM payments${w} ORDER BY id`, w.args).map(paymentRows.row);
      const allocations = allocationsOf(found.map((p) => p.id));
      return found.map((p): PaymentRow => ({ ...p, allocations: allocations.get(p.id) ?? [] }));
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
    async lineSums(filter) {
      const from = (w: Where): string => `FROM lines l JOIN invoices i ON i.id = l.invoice_id${w}`;
      const w = invoiceWhere(filter, 'i.');
      const places = 'l.total_places, l.tax_places, l.quantity_places';
      const parts = exactly(() =>
        db.rows(
          `SELECT l.product_id, i.currency, ${places}, CAST(SUM(l.total_units) AS TEXT), CAST(SUM(l.tax_units) AS TEXT), CAST(SUM(l.quantity_units) AS TEXT),
                  COUNT(DISTINCT l.invoice_id), SUM(l.total_units IS NULL OR l.tax_units IS NULL OR l.quantity_units IS NULL),
                  MIN(l.invoice_id * 1000000 + l.position), l.description
           ${from(w)} GROUP BY l.product_id, i.currency, ${places}`,
          w.args,
        ),
      );
      if (parts === null) return null;
      const products = new Map<string, ProductLineSums & { first: number; parts: number }>();
      for (const [productId, currency, pTotal, pTax, pQuantity, total, tax, quantity, invoices, unsummable, first, description] of parts) {
        if (num(unsummable) > 0) return null;
        const key = `${String(productId)} ${str(currency)}`;
        const found = products.get(key) ?? {
          product_id: productId === null ? null : num(productId),
          currency: str(currency),
          invoices: num(invoices),
          line_total: [],
          tax_amount: [],
          quantity: [],
          description: str(description),
          first: num(first),
          parts: 0,
        };
        found.parts++;
        found.line_total.push(fromScaled(str(total), num(pTotal)));
        found.tax_amount.push(fromScaled(str(tax), num(pTax)));
        found.quantity.push(fromScaled(str(quantity), num(pQuantity)));
        if (num(first) < found.first) Object.assign(found, { first: num(first), description: str(description) });
        products.set(key, found);
      }
      // A product whose amounts were written with more than one number of places spans several groups:
      // its invoices are counted apart, once each.
      if ([...products.values()].some((p) => p.parts > 1)) {
        for (const [productId, currency, invoices] of db.rows(
          `SELECT l.product_id, i.currency, COUNT(DISTINCT l.invoice_id) ${from(w)} GROUP BY l.product_id, i.currency`,
          w.args,
        )) {
          const found = products.get(`${String(productId)} ${str(currency)}`);
          if (found) found.invoices = num(invoices);
        }
      }
      const withLines = num(db.value(`SELECT COUNT(DISTINCT l.invoice_id) ${from(w)}`, w.args));
      return { products: [...products.values()].map(({ first: _first, parts: _parts, ...sums }) => sums), withLines } satisfies LineSums;
    },
    async invoiceSums(filter) {
      const w = invoiceWhere(filter);
      const amounts = ['subtotal', 'tax', 'total'];
      const parts = exactly(() =>
        db.rows(
          `SELECT currency, COUNT(*), SUM(${amounts.map((a) => `${a}_units IS NULL`).join(' OR ')}),
                  ${amounts.map((a) => `${a}_places, CAST(SUM(${a}_units) AS TEXT)`).join(', ')}
           FROM invoices${w} GROUP BY currency, ${amounts.map((a) => `${a}_places`).join(', ')}`,
          w.args,
        ),
      );
      if (parts === null) return null;
      const sums = new Map<string, CurrencySums>();
      for (const [currency, count, unsummable, pSub, sub, pTax, tax, pTotal, total] of parts) {
        if (num(unsummable) > 0) return null;
        const found = sums.get(str(currency)) ?? { currency: str(currency), count: 0, subtotal: [], tax: [], total: [] };
        found.count += num(count);
        found.subtotal.push(fromScaled(str(sub), num(pSub)));
        found.tax.push(fromScaled(str(tax), num(pTax)));
        found.total.push(fromScaled(str(total), num(pTotal)));
        sums.set(str(currency), found);
      }
      return [...sums.values()];
    },
    async owing(q) {
      const w = invoiceWhere({ receivable: true, ...(q.customerId !== undefined ? { customerId: q.customerId } : {}) });
      if (q.dueBefore !== undefined) w.add('due_date < ?', q.dueBefore);
      const mixed = db.value(
        `SELECT COUNT(*) FROM (SELECT currency FROM invoices${w} GROUP BY currency HAVING COUNT(balance_units) < COUNT(*) OR COUNT(DISTINCT balance_places) > 1)`,
        w.args,
      );
      if (num(mixed) > 0) return null;
      return exactly(() => {
        const byDueDate = db
          .rows(
            `SELECT currency, due_date, COUNT(*), CAST(SUM(balance_units) AS TEXT), MAX(balance_places) FROM invoices${w} GROUP BY currency, due_date`,
            w.args,
          )
          .map(([currency, due, count, units, places]) => ({
            currency: str(currency),
            due_date: str(due),
            count: num(count),
            balance: fromScaled(str(units), num(places)),
          }));
        // Within a currency every balance has the same places, so the whole units compare as the amounts do.
        const topCustomers = db
          .rows(
            `SELECT g.currency, g.customer_id, i.customer_name, g.n, g.units, g.places, g.oldest FROM (
               SELECT currency, customer_id, COUNT(*) AS n, CAST(SUM(balance_units) AS TEXT) AS units, MAX(balance_places) AS places,
                      MIN(due_date) AS oldest, MIN(id) AS first_id,
                      ROW_NUMBER() OVER (PARTITION BY currency ORDER BY SUM(balance_units) DESC, customer_id) AS place
               FROM invoices${w} GROUP BY currency, customer_id) g
             JOIN invoices i ON i.id = g.first_id WHERE g.place <= ? ORDER BY g.currency, g.place`,
            [...w.args, q.top],
          )
          .map(([currency, customerId, name, count, units, places, oldest]) => ({
            currency: str(currency),
            customer_id: num(customerId),
            customer_name: str(name),
            count: num(count),
            balance: fromScaled(str(units), num(places)),
            oldest_due: str(oldest),
          }));
        const oldest = db
          .rows(`SELECT ${invoiceRows.columns} FROM invoices${w} ORDER BY due_date, id LIMIT ?`, [...w.args, q.limit])
          .map(invoiceRows.row);
        return { byDueDate, topCustomers, oldest };
      });
    },
    async productNames(ids) {
      const names = new Map<number, string>();
      for (const chunk of chunks(ids)) {
        const w = new Where();
        w.in('id', chunk);
        for (const [id, name] of db.rows(`SELECT id, name FROM products${w}`, w.args)) names.set(num(id), str(name));
      }
      return names;
    },
    async raw(kind: MirroredKind, id: number) {
      const [r] = db.rows(`SELECT raw FROM ${kind} WHERE id = ?`, [id]);
      return r ? (JSON.parse(str(r[0])) as Record<string, unknown>) : null;
    },
  };
}
