// The Postgres engine of the mirror's store (node-postgres): one database shared by any number of processes.
// Reads and writes go through a small pool; the sync lease and the events' LISTEN live on one session
// connection per process (src/db/postgres/session.ts). The store's logic is the one above every engine
// (../sql/store.ts); Postgres adds each summed amount's `numeric` twin, and each invoice's lines summed per
// product beside the invoice's fields a sales question filters on (invoice_products, line-sums.ts).

import { Decimal } from '../../api/decimal.js';
import type { Arg } from '../../db/cells.js';
import { PgDb } from '../../db/postgres/db.js';
import { postgresEngine } from '../../db/postgres/engine.js';
import { PgSession } from '../../db/postgres/session.js';
import { SharedPostgres } from '../../db/postgres/shared.js';
import { redactedUrl } from '../location.js';
import type { Rec } from '../record.js';
import { summedAmountsOf, typedCells } from '../sql/columns.js';
import { type EngineBooks, sqlStore } from '../sql/store.js';
import type { MirrorStore, OpenStoreOptions } from '../store.js';
import type { MirroredKind } from '../types.js';
import { prepareSchema } from './open.js';
import { COLUMNS, INVOICE_PRODUCT_FIELDS, receivable, sumInvoiceProducts } from './schema.js';
import { postgresSums } from './sums.js';

/** An amount's numeric twin: the text itself when it is a plain decimal, else null (the text stays). */
const numeric = (amount: string | null): string | null => (Decimal.read(amount) === null ? null : amount);

const fields = (prefix: string): string => INVOICE_PRODUCT_FIELDS.map((c) => `${prefix}${c}`).join(', ');
/** The invoices' header fields into their products' sums, where they changed. */
const HEADERS_TO_PRODUCTS = `UPDATE invoice_products p SET ${INVOICE_PRODUCT_FIELDS.map((c) => `${c} = i.${c}`).join(', ')}
  FROM invoices i WHERE p.invoice_id = i.id AND i.id = ANY(?::bigint[]) AND (${fields('p.')}) IS DISTINCT FROM (${fields('i.')})`;

export const POSTGRES_BOOKS: EngineBooks = {
  receivable,
  columns: COLUMNS,
  cellsOf(kind: MirroredKind, r: Rec): Arg[] {
    const cells = typedCells(kind, r);
    return kind === 'invoices' ? [...cells, ...summedAmountsOf(r).map(numeric)] : cells;
  },
  lineColumns: ['total_n', 'tax_n', 'quantity_n'],
  lineCells: ({ quantity, tax, total }) => [numeric(total), numeric(tax), numeric(quantity)],
  invoicesWritten: async (query, ids) => void (await query(HEADERS_TO_PRODUCTS, [ids])),
  // The old lines and their sums out in one round trip.
  clearLines: async (query, invoiceId) =>
    void (await query('WITH sums AS (DELETE FROM invoice_products WHERE invoice_id = ?) DELETE FROM lines WHERE invoice_id = ?', [
      invoiceId,
      invoiceId,
    ])),
  // The new lines in, summed per product from the rows the same statement inserts.
  insertingLines: (insert) => `WITH inserted AS (${insert} RETURNING invoice_id, position, product_id, total_n, tax_n, quantity_n)
    ${sumInvoiceProducts('inserted')}`,
  sums: postgresSums,
};

/** Opens the store at the URL; throws (without the password) when the database cannot be used. */
export async function openPostgresStore(
  url: string,
  options: Pick<OpenStoreOptions, 'identity' | 'schema' | 'shared'>,
): Promise<MirrorStore> {
  const shared = options.shared instanceof SharedPostgres ? options.shared : null;
  const db = new PgDb(url, options.schema, shared);
  const where = redactedUrl(url);
  try {
    await prepareSchema(db, options.identity, where);
  } catch (err) {
    await db.close();
    throw err;
  }
  const session = shared?.session ?? new PgSession(url, db.secrets);
  return sqlStore(postgresEngine(db, session), POSTGRES_BOOKS, {
    path: where,
    async close() {
      // A shared session stays for the other mirrors on it (this one's lease is released when its mirror stops).
      if (!shared) await session.close();
      await db.close();
    },
  });
}
