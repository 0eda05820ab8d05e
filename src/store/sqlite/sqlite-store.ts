// The embedded SQLite engine of the mirror's store (libsql): a file, or memory. The store's logic is the
// one above every engine (../sql-store.ts); SQLite adds each summed amount as whole units of its last place.

import { type EngineBooks, sqlStore } from '../sql-store.js';
import type { MirrorStore, OpenStoreOptions } from '../store.js';
import { SQLITE_COLUMNS } from './columns.js';
import type { Db } from './db.js';
import { sqliteEngine } from './engine.js';
import { messageOf } from './failure.js';
import { openMemory, openMirrorFile, rebuildWhenDamaged } from './open.js';
import { receivable } from './schema.js';
import { sqliteSums } from './sums.js';

/** Each summed amount beside it as whole units and places (exact-sums.ts); the reader sums those. */
export const SQLITE_BOOKS: EngineBooks = {
  receivable,
  columns: SQLITE_COLUMNS,
  sums: sqliteSums,
};

/**
 * Opens the store. Never throws for a bad file: a damaged file is set aside and rebuilt; a file of another key,
 * or one that is locked, read-only or in a missing folder, is left as it is, with a warning and a mirror in
 * memory. A file found damaged later, at any read or write, is set aside once and rebuilt in place: the call
 * that found it fails with that reason, and the next sync reads the books anew.
 */
export async function openSqliteStore(options: OpenStoreOptions): Promise<MirrorStore> {
  const { location, identity, warn } = options;
  const limits = { busyTimeoutMs: options.busyTimeoutMs, maxPages: options.maxPages };
  let db: Db;
  let path: string | null = null;
  if (location.kind === 'file') {
    try {
      db = openMirrorFile({ path: location.path, explicit: location.explicit }, identity, warn, limits);
      path = location.path;
    } catch (err) {
      warn(`${messageOf(err)}: keeping the mirror in memory for this run`);
      db = openMemory(identity);
    }
  } else db = openMemory(identity);
  if (path !== null) rebuildWhenDamaged(db, identity, warn, limits);
  return sqlStore(sqliteEngine(db), SQLITE_BOOKS, { path, close: async () => db.close() });
}
