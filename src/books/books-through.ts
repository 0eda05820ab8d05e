// A Books that reaches the books another one holds, found (and opened, if need be) at each call: the
// desktop's mirror opens on first use; a hosted tenant's mirror may close while idle and open again.
import type { Books, MirrorReader, TaskTable } from './types.js';

// Every method of MirrorReader, once each: the compiler refuses a list that misses one.
const EVERY_READER_METHOD: Record<keyof MirrorReader, true> = {
  customers: true,
  customer: true,
  invoices: true,
  lines: true,
  linesMissing: true,
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
const EVERY_TASK_METHOD: Record<keyof TaskTable, true> = { create: true, get: true, beat: true, finish: true, cancel: true, claim: true };
const TASK_METHODS = Object.keys(EVERY_TASK_METHOD) as (keyof TaskTable)[];

/** A Books whose every call first waits for `books()`. */
export function booksThrough(books: () => Promise<Books>): Books {
  const read = Object.fromEntries(
    READER_METHODS.map((name) => [
      name,
      async (...args: unknown[]) => ((await books()).read[name] as (...a: unknown[]) => unknown)(...args),
    ]),
  ) as unknown as MirrorReader;
  const tasks = Object.fromEntries(
    TASK_METHODS.map((name) => [
      name,
      async (...args: unknown[]) => ((await books()).tasks[name] as (...a: unknown[]) => unknown)(...args),
    ]),
  ) as unknown as TaskTable;
  return {
    ensureFresh: async (kinds, options) => (await books()).ensureFresh(kinds, options),
    read,
    tasks,
    snapshot: async (work) => (await books()).snapshot(work),
  };
}
