// A tenant's books mirror that rests while its tenant is idle: closed (its background sync stopped, its
// lease and channel let go, its connections back to the process's pool), then planned again and opened by the
// next answer, subscription or webhook that needs it. Its rows stay in the tenant's schema, so opening again
// syncs only what changed. The Books the tenant's tools hold reach whichever mirror is current.
import { booksThrough } from '../../books/books-through.js';
import type { Readiness } from '../../http/health.js';
import type { Books } from '../../store/types.js';
import type { TenantBooks } from './tenant-mirror.js';

export interface RestingMirror extends TenantBooks {
  /** Closes the mirror until something needs it again; false when it was already resting. */
  rest(): Promise<boolean>;
}

export const RESTING: Readiness = { ready: true, detail: { mirror: { state: 'resting' } } };

export function restingMirror(plan: () => TenantBooks): RestingMirror {
  const first = plan();
  let current: TenantBooks | null = first;
  // The one resting lets go of its lease and channel before the next one takes them.
  let closing: Promise<void> = Promise.resolve();
  const now = async (): Promise<TenantBooks> => {
    await closing;
    return (current ??= plan());
  };
  const close = (): boolean => {
    const was = current;
    current = null;
    if (was) closing = closing.then(() => was.close()).catch(() => undefined);
    return was !== null;
  };
  return {
    books: first.books === null ? null : booksThrough(async () => (await now()).books as Books),
    syncing: first.syncing,
    start: async () => (await now()).start(),
    readiness: () => current?.readiness() ?? Promise.resolve(RESTING),
    async rest() {
      const rested = close();
      await closing;
      return rested;
    },
    async close() {
      close();
      await closing;
    },
  };
}
