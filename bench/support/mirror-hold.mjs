// A fresh process holding a mirror file (for the mirror bench's RSS figure): opens it, signs in, brings
// it up to date when asked (an incremental sync on a full file), and prints its RSS after a GC, in MiB.
// argv: baseUrl keyId secret path fresh(0|1)
const [baseUrl, keyId, secret, path, fresh] = process.argv.slice(2);
const { createApiClient } = await import('../../dist/src/api/index.js');
const { createLogger } = await import('../../dist/src/log/logger.js');
const { startMirror } = await import('../../dist/src/books/mirror.js');
const { openMirrorStore } = await import('../../dist/src/books/open-store.js');
const { MIRRORED_KINDS } = await import('../../dist/src/store/types.js');
const logger = createLogger({ level: 'error' });
const api = createApiClient({ baseUrl, keyId, secret }, { logger });
await api.ping();
const store = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity: 'bench', warn: () => undefined });
const mirror = await startMirror({ api, store, bus: null, logger, pollSeconds: 0, lines: false, freshMs: 0 });
if (fresh === '1') await mirror.books.ensureFresh(MIRRORED_KINDS);
const counts = await store.counts();
globalThis.gc();
globalThis.gc();
process.stdout.write(
  JSON.stringify({ rss: process.memoryUsage().rss / 1048576, heapUsed: process.memoryUsage().heapUsed / 1048576, counts }),
);
await mirror.stop();
await store.close();
await api.close();
