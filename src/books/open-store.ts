// Opens the mirror's store on the engine its location names. Each engine loads only when asked for, so a
// server with the mirror off, or not yet opened, never loads a native driver.
import type { MirrorStore, OpenStoreOptions } from './store.js';

export async function openMirrorStore(options: OpenStoreOptions): Promise<MirrorStore> {
  const { openSqliteStore } = await import('./sqlite/sqlite-store.js');
  return openSqliteStore(options);
}
