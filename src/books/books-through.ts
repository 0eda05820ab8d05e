// A Books that reaches the books another one holds, found (and opened, if need be) at each call: the
// desktop's mirror opens on first use; a hosted tenant's mirror may close while idle and open again. The
// desktop's, once open, stays until the server stops: the Books then becomes it, and calls reach it directly.
import type { Books, MirrorReader, TaskTable } from '../store/types.js';

// Every method of MirrorReader, once each: the compiler refuses a list that misses one.
const EVERY_READER_METHOD: Record<keyof MirrorReader, true> = {
  customers: true,
  customer: true,
  invoices: true,
  lines: true,
  quotes: true,
  payments: true,
  products: true,
  productNames: true,
  lineSums: true,
  owing: true,
  invoiceSums: true,
  raw: true,
};
const READER_METHODS = Object.keys(EVERY_READER_METHOD) as (keyof MirrorReader)[];
const EVERY_TASK_METHOD: Record<keyof TaskTable, true> = {
  create: true,
  get: true,
  working: true,
  beat: true,
  finish: true,
  cancel: true,
  claim: true,
};
const TASK_METHODS = Object.keys(EVERY_TASK_METHOD) as (keyof TaskTable)[];

/**
 * A Books whose every call first waits for `books()`. With `stays` (the books found never change: the desktop's
 * mirror, open until the server stops), it becomes them once found, so later calls reach them directly.
 */
export function booksThrough(books: () => Promise<Books>, { stays = false }: { stays?: boolean } = {}): Books {
  const reach = stays
    ? async (): Promise<Books> => {
        const found = await books();
        const { ensureFresh, neverRead, read, snapshot, tasks } = found;
        Object.assign(through, { ensureFresh, neverRead, read, snapshot, tasks });
        return found;
      }
    : books;
  const read = Object.fromEntries(
    READER_METHODS.map((name) => [
      name,
      async (...args: unknown[]) => ((await reach()).read[name] as (...a: unknown[]) => unknown)(...args),
    ]),
  ) as unknown as MirrorReader;
  const tasks = Object.fromEntries(
    TASK_METHODS.map((name) => [
      name,
      async (...args: unknown[]) => ((await reach()).tasks[name] as (...a: unknown[]) => unknown)(...args),
    ]),
  ) as unknown as TaskTable;
  const through: Books = {
    ensureFresh: async (kinds, options) => (await reach()).ensureFresh(kinds, options),
    neverRead: async (kinds) => (await reach()).neverRead(kinds),
    read,
    tasks,
    snapshot: async (work) => (await reach()).snapshot(work),
  };
  return through;
}
