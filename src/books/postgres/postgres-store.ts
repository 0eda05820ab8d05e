// The Postgres engine of the mirror's store (node-postgres): one database shared by any number of processes.
// Reads and writes go through a small pool; the sync lease and the events' LISTEN live on one session
// connection per process (session.ts).
import { redactedUrl } from '../location.js';
import type { MirrorStore, OpenStoreOptions } from '../store.js';
import { PgDb } from './db.js';
import { prepareSchema } from './open.js';
import { postgresReader, readsOf } from './reader.js';
import { eventsChannel } from './schema.js';
import { PgSession } from './session.js';
import { postgresWriter } from './writer.js';

/** Opens the store at the URL; throws (without the password) when the database cannot be used. */
export async function openPostgresStore(url: string, options: Pick<OpenStoreOptions, 'identity' | 'schema'>): Promise<MirrorStore> {
  const db = new PgDb(url, options.schema);
  const where = redactedUrl(url);
  try {
    await prepareSchema(db, options.identity, where);
  } catch (err) {
    await db.close();
    throw err;
  }
  const session = new PgSession(url, db.secrets, eventsChannel(db.schema));
  return {
    read: postgresReader(db),
    snapshot: (work) => db.snapshot((query) => work(postgresReader(readsOf(query)))),
    path: where,
    ...postgresWriter(db, session),
    async close() {
      await session.close();
      await db.close();
    },
  };
}
