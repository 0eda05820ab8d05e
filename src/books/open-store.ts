// Opens the mirror's store on the engine its location names: a Postgres URL, or SQLite (a file or memory).
// Each engine loads only when asked for, so a server with the mirror off, or not yet opened, never loads a
// driver. A Postgres database that cannot be used leaves the mirror in memory for this run, as a file does;
// but a hosted tenant's (on connections shared with other tenants) that cannot be reached just now (down,
// restarting) is an error to retry at its next use, never a mirror kept apart from the deployment's.
import { isUnreachable } from '../core/unreachable.js';
import type { MirrorStore, OpenStoreOptions } from '../store/store.js';

export async function openMirrorStore(options: OpenStoreOptions): Promise<MirrorStore> {
  const sqlite = async (on: OpenStoreOptions): Promise<MirrorStore> =>
    (await import('../store/sqlite/sqlite-store.js')).openSqliteStore(on);
  const { location } = options;
  if (location.kind !== 'postgres') return sqlite(options);
  const { openPostgresStore } = await import('../store/postgres/postgres-store.js');
  try {
    return await openPostgresStore(location.url, options);
  } catch (err) {
    if (options.shared && isUnreachable(err)) throw err;
    options.warn(`${err instanceof Error ? err.message : String(err)}: keeping the mirror in memory for this run`);
    return sqlite({ ...options, location: { kind: 'memory' } });
  }
}
