// The mirror's tables on Postgres, in a schema of their own (invoicing_mcp), so a database that holds other
// tables keeps them apart. SCHEMA_VERSION changes whenever they do: a mirror of another version is rebuilt,
// never misread (or, from a version MIGRATIONS names, brought up to this one in place). Amounts stay the
// service's text, and each summed one has a `numeric` twin (`<name>_n`, null when the text is not a plain
// decimal), which SQL compares and adds exactly at any size.

import { Decimal } from '../../core/decimal.js';
import { type EngineColumns, itemTableDdl, kindTableDdl } from '../ddl.js';
import { ALLOCATIONS, INVOICES, KIND_TABLES, LINES } from '../tables.js';
import { TASKS_TABLE } from '../tasks.js';
import { LOCKS_TABLE } from './engine.js';

export const SCHEMA_VERSION = 4;

// Text compares and sorts byte for byte, as in SQLite (and lower() folds ASCII only), whatever the database's locale.
const TEXT = 'text COLLATE "C"';

/** Postgres' names for the column types; each summed amount's `numeric` twin (`<as>_n`). */
export const POSTGRES_COLUMNS: EngineColumns = {
  types: { text: TEXT, id: 'bigint', int: 'integer', raw: 'text' },
  exactColumns: (as) => [[`${as}_n`, 'numeric']],
  // The text itself when it is a plain decimal, else null (the text stays).
  exactCells: (amount) => [Decimal.read(amount) === null ? null : amount],
};

/** The invoice's fields kept beside its products' sums: those a sales question filters on. */
export const INVOICE_PRODUCT_FIELDS = ['issue_date', 'status', 'customer_id', 'currency'] as const;

/**
 * Receivable: not draft or void, and a balance above zero; a balance that is not a plain decimal is judged by
 * its text as the SQLite engine judges every one (no minus sign, a digit other than 0).
 */
export const receivable = (p = ''): string =>
  `${p}status NOT IN ('draft', 'void') AND (${p}balance_n > 0 OR (${p}balance_n IS NULL AND ${p}balance NOT LIKE '-%' AND ${p}balance ~ '[1-9]'))`;

export const SCHEMA: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL)',
  // lines_stamp: the invoice's stamp when its lines were stored (lines match the header when equal).
  ...Object.values(KIND_TABLES).map((t) => kindTableDdl(t, POSTGRES_COLUMNS, t === INVOICES ? `, lines_stamp ${TEXT}` : '')),
  'CREATE INDEX IF NOT EXISTS invoices_issue ON invoices (issue_date)',
  'CREATE INDEX IF NOT EXISTS invoices_status ON invoices (status)',
  'CREATE INDEX IF NOT EXISTS invoices_customer ON invoices (customer_id)',
  'CREATE INDEX IF NOT EXISTS invoices_number ON invoices (lower(number))',
  'CREATE INDEX IF NOT EXISTS quotes_number ON quotes (lower(number))',
  `CREATE INDEX IF NOT EXISTS invoices_receivable ON invoices (currency, due_date, customer_id) WHERE ${receivable()}`,
  'CREATE INDEX IF NOT EXISTS invoices_lines ON invoices (lines_stamp, stamp)',
  // The invoices of a range whose lines are missing (each product answer asks first): few, found from this alone.
  'CREATE INDEX IF NOT EXISTS invoices_lines_missing ON invoices (issue_date) WHERE lines_stamp IS NULL OR lines_stamp <> stamp',
  'CREATE INDEX IF NOT EXISTS payments_date ON payments (payment_date)',
  // One customer's payments and quotes (report_customer, and the answers' customer_id).
  'CREATE INDEX IF NOT EXISTS payments_customer ON payments (customer_id)',
  'CREATE INDEX IF NOT EXISTS quotes_customer ON quotes (customer_id)',
  itemTableDdl(LINES, POSTGRES_COLUMNS),
  // Each invoice's lines summed per product, with the invoice fields a sales question filters on (version 2):
  // sales by product add these rows of the range alone, no join with the invoices, no distinct count
  // (line-sums.ts). Written from the lines with them; the invoice's fields again when its header changes.
  `CREATE TABLE IF NOT EXISTS invoice_products (invoice_id bigint NOT NULL, product_id bigint, first_position integer NOT NULL,
     total_n numeric, tax_n numeric, quantity_n numeric, unsummable integer NOT NULL,
     ${INVOICE_PRODUCT_FIELDS.map((c) => `${c} ${POSTGRES_COLUMNS.types[INVOICES.columns[c].type]}`).join(', ')})`,
  'CREATE INDEX IF NOT EXISTS invoice_products_invoice ON invoice_products (invoice_id)',
  'CREATE INDEX IF NOT EXISTS invoice_products_issue ON invoice_products (issue_date)',
  itemTableDdl(ALLOCATIONS, POSTGRES_COLUMNS),
  'CREATE INDEX IF NOT EXISTS allocations_invoice ON allocations (invoice_id)',
  'CREATE TABLE IF NOT EXISTS marks (kind text PRIMARY KEY, watermark text, synced_at text NOT NULL, synced_ms bigint NOT NULL)',
  // Written with the records that made them, in the order they commit (see ../sql-store.ts): every process on the
  // mirror publishes each once.
  'CREATE TABLE IF NOT EXISTS events (seq bigserial PRIMARY KEY, at_ms bigint NOT NULL, body text NOT NULL)',
  LOCKS_TABLE,
  'CREATE TABLE IF NOT EXISTS wants (kind text PRIMARY KEY, at_ms bigint NOT NULL)',
  // Tasks of long answers (MCP Tasks): made on any process, answered by any (a killed one's taken over).
  TASKS_TABLE('bigint', 'text'),
];

/** Sums into invoice_products the lines of `lines` (the table, or rows a statement just inserted) with their invoices. */
export const sumInvoiceProducts = (lines: string): string => `
  INSERT INTO invoice_products (invoice_id, product_id, first_position, total_n, tax_n, quantity_n, unsummable, ${INVOICE_PRODUCT_FIELDS.join(', ')})
  SELECT l.invoice_id, l.product_id, MIN(l.position), SUM(l.total_n), SUM(l.tax_n), SUM(l.quantity_n),
         COUNT(*) FILTER (WHERE l.total_n IS NULL OR l.tax_n IS NULL OR l.quantity_n IS NULL), ${INVOICE_PRODUCT_FIELDS.map((c) => `i.${c}`).join(', ')}
  FROM ${lines} l JOIN invoices i ON i.id = l.invoice_id
  GROUP BY l.invoice_id, l.product_id, ${INVOICE_PRODUCT_FIELDS.map((c) => `i.${c}`).join(', ')}`;

/**
 * Version 4 added each record's stamp as an instant (`stamp_ms`), which orders its writes: worked out from the
 * stamps stored. A stamp that is not a timestamp is left without one (its record is written as it comes).
 */
const STAMP_INSTANTS: readonly string[] = Object.values(KIND_TABLES).flatMap((t) => [
  `ALTER TABLE ${t.name} ADD COLUMN IF NOT EXISTS stamp_ms bigint`,
  `UPDATE ${t.name} SET stamp_ms = floor(extract(epoch FROM stamp::timestamptz) * 1000)
   WHERE stamp ~ '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d(:\\d\\d(\\.\\d+){0,1}){0,1}(Z|[+-]\\d\\d(:{0,1}\\d\\d){0,1})$'`,
]);

/** What brings a mirror of an older version to this one in place (after SCHEMA's statements), keeping what it read. */
export const MIGRATIONS: Readonly<Record<string, readonly string[]>> = {
  // Version 2 added invoice_products: summed from the lines already stored.
  '1': [sumInvoiceProducts('lines'), ...STAMP_INSTANTS],
  // Version 3 added the tasks table (SCHEMA's statements make it); nothing stored changes.
  '2': STAMP_INSTANTS,
  '3': STAMP_INSTANTS,
};
