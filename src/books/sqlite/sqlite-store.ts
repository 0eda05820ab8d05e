// The embedded SQLite engine of the mirror's store (libsql): a file, or memory.
import type { MirrorStore, OpenStoreOptions } from '../store.js';
import { openDatabase } from './open.js';
import { sqliteReader } from './reader.js';
import { sqliteWriter } from './writer.js';

/**
 * Opens the store. Never throws for a bad file: a file of another key, or one that cannot be opened or set
 * aside, gives a warning and a mirror in memory.
 */
export async function openSqliteStore(options: OpenStoreOptions): Promise<MirrorStore> {
  const path = options.location.kind === 'file' ? options.location.path : null;
  let opened: Awaited<ReturnType<typeof openDatabase>>;
  try {
    opened = await openDatabase({ path }, options.identity, options.warn);
  } catch (err) {
    options.warn(`the mirror cannot use ${path} (${err instanceof Error ? err.message : String(err)}): keeping it in memory for this run`);
    opened = await openDatabase({ path: null }, options.identity, options.warn);
  }
  const { db } = opened;
  return {
    read: sqliteReader(db),
    path: opened.path,
    ...sqliteWriter(db),
    close: async () => db.close(),
  };
}
