// The Postgres engine of the mirror's store (node-postgres): one database shared by any number of processes.
// Reads and writes go through a small pool; the sync lease and the events' LISTEN live on one session
// connection per process (session.ts).

import { PgDb } from '../../db/postgres/db.js';
import { PgSession } from '../../db/postgres/session.js';
import { SharedPostgres } from '../../db/postgres/shared.js';
import { redactedUrl } from '../location.js';
import { taskTable } from '../sql/tasks.js';
import type { MirrorStore, OpenStoreOptions } from '../store.js';
import { prepareSchema } from './open.js';
import { postgresReader, readsOf } from './reader.js';
import { postgresWriter } from './writer.js';

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
  return {
    read: postgresReader(db),
    snapshot: (work) => db.snapshot((query) => work(postgresReader(readsOf(query)))),
    path: where,
    ...postgresWriter(db, session),
    tasks: taskTable(db.rows),
    async close() {
      // A shared session stays for the other mirrors on it (this one's lease is released when its mirror stops).
      if (!shared) await session.close();
      await db.close();
    },
  };
}
