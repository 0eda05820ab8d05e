// Each table of the mirror's records, defined once: its columns in order, each with the type the engines
// store it as, how its cell is taken from what the service sent, and how it reads back into the row the
// mirror's readers get. From this come each engine's DDL (sqlite/schema.ts, postgres/schema.ts), the
// cells written from a record, the SELECT lists and row readers (rows.ts), and the rows' TypeScript types
// (types.ts). Amounts and dates stay the service's strings; ids are integers; a missing field is null. The raw
// JSON is kept beside each record's columns, so fields we do not know survive. An engine adds columns of its
// own beside the amounts it sums (`summed`): SQLite whole units and places, Postgres a `numeric` twin.
import { type Arg, type Cell, num, str, strOrNull } from './cells.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' ? (v as Obj) : {});
/** What reads the value at a dotted path (`customer.id`): undefined where the path stops. */
function at(path: string): (from: Obj) => unknown {
  const [first = '', second] = path.split('.');
  return second === undefined ? (from) => from[first] : (from) => obj(from[first])[second];
}
const textOf = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : String(v));
const intOf = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);

/** How an engine stores a column: text, an id (Postgres: bigint), or a small integer. */
export type SqlType = 'text' | 'id' | 'int';

export interface Column<T> {
  readonly type: SqlType;
  /** Its cell from what the row stores (a record, a line, an allocation). */
  readonly cell: (from: Obj) => Arg;
  /** How its cell reads back into the row. */
  readonly read: (cell: Cell | undefined) => T;
}
/** A column the queries filter on that the row does not carry (what it says is read otherwise). */
export interface Hidden {
  readonly type: SqlType;
  readonly cell: (from: Obj) => Arg;
  readonly read: null;
}
type AnyColumn = Column<unknown> | Hidden;
type Columns = Readonly<Record<string, AnyColumn>>;

const text = (path: string, value = at(path)): Column<string> => ({ type: 'text', cell: (r) => textOf(value(r)), read: str });
const textOrNull = (path: string, value = at(path)): Column<string | null> => ({
  type: 'text',
  cell: (r) => textOf(value(r)),
  read: strOrNull,
});
const id = (path: string, value = at(path)): Column<number> => ({ type: 'id', cell: (r) => intOf(value(r)), read: num });
const idOrNull = (path: string, value = at(path)): Column<number | null> => ({
  type: 'id',
  cell: (r) => intOf(value(r)),
  read: (c) => (c === null || c === undefined ? null : num(c)),
});
const flag = (path: string, value = at(path)): Column<boolean> => ({
  type: 'int',
  cell: (r) => (value(r) === true ? 1 : 0),
  read: (c) => num(c) === 1,
});
/** A field of the product's stock, null when it has none. */
const ofStock = (cell: (stock: Obj) => Arg, type: SqlType = 'text'): Hidden => ({
  type,
  cell: (r) => (r.stock === null || r.stock === undefined ? null : cell(obj(r.stock))),
  read: null,
});

/** The fields a row carries: its columns less the hidden ones. */
export type Shown<C extends Columns> = {
  -readonly [K in keyof C as C[K] extends Hidden ? never : K]: C[K] extends Column<infer T> ? T : never;
};

export interface Table<C extends Columns = Columns> {
  readonly name: string;
  /** Its key's columns, integers, first in the table and in the row (a kind's `id`). */
  readonly key: readonly string[];
  readonly columns: C;
  /** The amounts the engines sum, each with the name its engine columns take (`tax_total` -> `tax_units`). */
  readonly summed: readonly (readonly [amount: keyof C & string, as: string])[];
}

/** A kind's table: `id`, the typed columns, then `stamp` (the record's `updated_at`) and `raw`. */
export interface KindTable<C extends Columns = Columns, Stamped extends boolean = boolean> extends Table<C> {
  /** The row carries the stamp as `updated_at`. */
  readonly stamped: Stamped;
}

const kind = <C extends Columns, S extends boolean>(name: string, columns: C, stamped: S, summed: KindTable<C>['summed'] = []) =>
  ({ name, key: ['id'], columns, stamped, summed }) as const satisfies KindTable<C, S>;

export const CUSTOMERS = kind(
  'customers',
  { code: text('code'), name: text('name'), email: textOrNull('email'), status: text('status') },
  true,
);

export const INVOICES = kind(
  'invoices',
  {
    number: text('number'),
    status: text('status'),
    customer_id: id('customer.id'),
    customer_name: text('customer.name'),
    issue_date: text('issue_date'),
    due_date: text('due_date'),
    currency: text('currency'),
    subtotal: text('subtotal'),
    tax_total: text('tax_total'),
    total: text('total'),
    balance: text('balance'),
    sales_channel: textOrNull('sales_channel'),
  },
  true,
  [
    ['balance', 'balance'],
    ['subtotal', 'subtotal'],
    ['tax_total', 'tax'],
    ['total', 'total'],
  ],
);

export const QUOTES = kind(
  'quotes',
  {
    number: text('number'),
    status: text('status'),
    customer_id: id('customer.id'),
    customer_name: text('customer.name'),
    issue_date: text('issue_date'),
    valid_until: text('valid_until'),
    total: text('total'),
    /** The quote's currency when the service sends one; null when it does not (the business's base currency). */
    currency: textOrNull('currency'),
    accepted_at: textOrNull('accepted_at'),
  },
  true,
);

export const PAYMENTS = kind(
  'payments',
  {
    customer_id: id('customer.id'),
    customer_name: text('customer.name'),
    amount: text('amount'),
    currency: text('currency'),
    payment_date: text('payment_date'),
    method: text('method'),
    reference: text('reference'),
  },
  false,
);

export const PRODUCTS = kind(
  'products',
  {
    name: text('name'),
    sku: textOrNull('sku'),
    barcode: textOrNull('barcode'),
    type: text('type'),
    default_price: text('default_price'),
    is_active: flag('is_active'),
    track_stock: flag('track_stock'),
    // The row's stock is read from the raw JSON (branches have no columns): these are for the queries.
    on_hand: ofStock((s) => textOf(s.on_hand)),
    reorder_level: ofStock((s) => textOf(s.reorder_level)),
    low: ofStock((s) => (s.low === true ? 1 : 0), 'int'),
  },
  true,
);

/** An invoice's lines (`items`), each at its position in them from 0. */
export const LINES = {
  name: 'lines',
  key: ['invoice_id', 'position'],
  columns: {
    description: text('description'),
    quantity: text('quantity'),
    unit_price: text('unit_price'),
    tax_amount: text('tax_amount'),
    line_total: text('line_total'),
    product_id: idOrNull('product_id'),
  },
  summed: [
    ['line_total', 'total'],
    ['tax_amount', 'tax'],
    ['quantity', 'quantity'],
  ],
} as const satisfies Table;

/** A payment's allocations to invoices, each at its position from 0. */
export const ALLOCATIONS = {
  name: 'allocations',
  key: ['payment_id', 'position'],
  columns: { invoice_id: id('invoice_id'), invoice_number: text('invoice_number'), amount: text('amount') },
  summed: [],
} as const satisfies Table;

export const KIND_TABLES = { customers: CUSTOMERS, invoices: INVOICES, quotes: QUOTES, payments: PAYMENTS, products: PRODUCTS } as const;

/** A kind's row as its readers get it. */
export type KindRow<T extends KindTable> = { id: number } & Shown<T['columns']> &
  (T['stamped'] extends true ? { updated_at: string } : unknown);

/** A row of a table that is not a kind's (a line, an allocation): its key and the columns it shows. */
export type ItemRow<T extends Table> = { [K in T['key'][number]]: number } & Shown<T['columns']>;

/** The typed columns' names, in order. */
export const columnNames = (table: Table): string[] => Object.keys(table.columns);

/**
 * What writes a row's cells from `from` (a record, a line, an allocation): the typed columns in order, then
 * for each amount the engines sum (`summed`'s order), the cells `exact` makes of it as the service wrote it.
 */
export function cellWriter(table: Table, exact: (amount: string | null) => readonly Arg[]): (from: Obj) => Arg[] {
  const cells = Object.values(table.columns).map((c) => c.cell);
  const summed = table.summed.map(([amount]) => amount);
  return (from) => {
    const row: Arg[] = [];
    for (const cell of cells) row.push(cell(from));
    for (const amount of summed) for (const cell of exact(textOf(from[amount]))) row.push(cell);
    return row;
  };
}

/** The items of a list field (an invoice's `items`, a payment's `allocations`), each an object. */
export const itemsOf = (list: unknown): Obj[] => (Array.isArray(list) ? (list as unknown[]).map(obj) : []);
