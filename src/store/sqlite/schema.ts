// The mirror's tables. SCHEMA_VERSION changes whenever they do: a file of another version is rebuilt,
// never misread. Amounts, dates and stamps are TEXT exactly as the service sent them.

import { itemTableDdl, kindTableDdl } from '../ddl.js';
import { ALLOCATIONS, KIND_TABLES, LINES } from '../tables.js';
import { TASKS_TABLE } from '../tasks.js';
import { SQLITE_COLUMNS } from './columns.js';
import { LOCKS_TABLE } from './engine.js';

export const SCHEMA_VERSION = 3;

/**
 * Receivable: not draft or void, and a balance above zero (a decimal string: no minus sign, a digit other
 * than 0). Written once: the owed answers' index below is used only where a query says exactly this.
 */
export const receivable = (prefix = ''): string =>
  `${prefix}status NOT IN ('draft', 'void') AND ${prefix}balance NOT LIKE '-%' AND ${prefix}balance GLOB '*[1-9]*'`;

export const SCHEMA: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  // lines_stamp: the invoice's stamp when its lines were stored (lines match the header when equal).
  ...Object.values(KIND_TABLES).map((t) => kindTableDdl(t, SQLITE_COLUMNS, t === KIND_TABLES.invoices ? ', lines_stamp TEXT' : '')),
  'CREATE INDEX IF NOT EXISTS invoices_issue ON invoices (issue_date)',
  'CREATE INDEX IF NOT EXISTS invoices_status ON invoices (status)',
  'CREATE INDEX IF NOT EXISTS invoices_customer ON invoices (customer_id)',
  // Numbers are looked up letter case aside (get_invoice by number, find_records).
  'CREATE INDEX IF NOT EXISTS invoices_number ON invoices (number COLLATE NOCASE)',
  'CREATE INDEX IF NOT EXISTS quotes_number ON quotes (number COLLATE NOCASE)',
  // What is owed, summed per currency, due date and customer from this index alone.
  `CREATE INDEX IF NOT EXISTS invoices_receivable ON invoices (currency, due_date, customer_id, balance_units, balance_places) WHERE ${receivable()}`,
  // Lines coverage (on every answer) and the lines still wanted are counted from this index alone.
  'CREATE INDEX IF NOT EXISTS invoices_lines ON invoices (lines_stamp, stamp)',
  'CREATE INDEX IF NOT EXISTS payments_date ON payments (payment_date)',
  // One customer's payments and quotes (report_customer, and the answers' customer_id).
  'CREATE INDEX IF NOT EXISTS payments_customer ON payments (customer_id)',
  'CREATE INDEX IF NOT EXISTS quotes_customer ON quotes (customer_id)',
  // Each summed amount also as whole units of its last decimal place (exact-sums.ts), null when not plain.
  // Kept in invoice order (WITHOUT ROWID), so an invoice's lines are read together.
  itemTableDdl(LINES, SQLITE_COLUMNS, ' WITHOUT ROWID'),
  itemTableDdl(ALLOCATIONS, SQLITE_COLUMNS),
  'CREATE INDEX IF NOT EXISTS allocations_invoice ON allocations (invoice_id)',
  // One row per kind once its first full read is complete: the watermark and the last complete read, both
  // in the service's clock.
  'CREATE TABLE IF NOT EXISTS marks (kind TEXT PRIMARY KEY, watermark TEXT, synced_at TEXT NOT NULL, synced_ms INTEGER NOT NULL)',
  // The events the sync derived, written with the records that made them: every process on the file
  // publishes them once, and none is lost between the write and the publish.
  'CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, at_ms INTEGER NOT NULL, body TEXT NOT NULL)',
  LOCKS_TABLE,
  // Kinds a process without the lease needs fresh: the lease holder reads them at once.
  'CREATE TABLE IF NOT EXISTS wants (kind TEXT PRIMARY KEY, at_ms INTEGER NOT NULL)',
  // Tasks of long answers (MCP Tasks): made on any process, answered by any.
  TASKS_TABLE('INTEGER', 'TEXT'),
];
