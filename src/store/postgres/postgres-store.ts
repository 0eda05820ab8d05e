// The Postgres engine of the mirror's store (node-postgres): one database shared by any number of processes.
// Reads and writes go through a small pool; the sync lease and the events' LISTEN live on one session
// connection per process (src/store/postgres/session.ts). The store's logic is the one above every engine
// (../sql-store.ts); Postgres adds each summed amount's `numeric` twin, and each invoice's lines summed per
// product beside the invoice's fields a sales question filters on (invoice_products, line-sums.ts).

import { redactedUrl } from '../location.js';
import { type EngineBooks, sqlStore } from '../sql-store.js';
import type { MirrorStore, OpenStoreOptions } from '../store.js';
import { PgDb } from './db.js';
import { postgresEngine } from './engine.js';
import { prepareSchema } from './open.js';
import { INVOICE_PRODUCT_FIELDS, POSTGRES_COLUMNS, receivable, sumInvoiceProducts } from './schema.js';
import { PgSession } from './session.js';
import { SharedPostgres } from './shared.js';
import { postgresSums } from './sums.js';

const fields = (prefix: string): string => INVOICE_PRODUCT_FIELDS.map((c) => `${prefix}${c}`).join(', ');
/** The invoices' header fields into their products' sums, where they changed. */
const HEADERS_TO_PRODUCTS = `UPDATE invoice_products p SET ${INVOICE_PRODUCT_FIELDS.map((c) => `${c} = i.${c}`).join(', ')}
  FROM invoices i WHERE p.invoice_id = i.id AND i.id = ANY(?::bigint[]) AND (${fields('p.')}) IS DISTINCT FROM (${fields('i.')})`;

export const POSTGRES_BOOKS: EngineBooks = {
  receivable,
  columns: POSTGRES_COLUMNS,
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
