// The embedded SQLite engine of the mirror's store (libsql): a file, or memory.

import type { Db } from '../../db/sqlite/db.js';
import { messageOf } from '../../db/sqlite/failure.js';
import { taskTable } from '../sql/tasks.js';
import type { MirrorStore, OpenStoreOptions } from '../store.js';
import { openMemory, openMirrorFile, rebuildWhenDamaged } from './open.js';
import { sqliteReader } from './reader.js';
import { sqliteWriter } from './writer.js';

/**
 * Every method of the writer (its reads too: a sync compares what it stores against them) waits for a read
 * snapshot to close, then runs its statements in the same turn: none lands inside a snapshot's transaction.
 */
function writesAfterSnapshots<W extends object>(db: Db, writer: W): W {
  return Object.fromEntries(
    (Object.entries(writer) as [string, (...args: never[]) => Promise<unknown>][]).map(([name, method]) => [
      name,
      async (...args: never[]) => {
        for (let wait = db.snapshotWait(); wait; wait = db.snapshotWait()) await wait;
        return method(...args);
      },
    ]),
  ) as W;
}

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
  const read = sqliteReader(db);
  return {
    read,
    path,
    ...writesAfterSnapshots(db, sqliteWriter(db)),
    tasks: writesAfterSnapshots(
      db,
      taskTable(async (sql, args) => db.rows(sql, args)),
    ),
    snapshot: (work) => db.snapshot(() => work(read)),
    close: async () => db.close(),
  };
}
