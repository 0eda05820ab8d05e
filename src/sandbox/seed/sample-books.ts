// The sample books of both businesses, made once per process for each (scale, seed, start days) and copied
// for every sandbox that asks: generating them is most of a sandbox's start (about 45 ms at scale 1), a
// copy a fifth of that, and test runs start a sandbox per file or per test. The kept books are never handed
// out: each caller gets its own copy, so a sandbox's changes stay its own. A pure function's results are the
// only state kept here.
import type { BooksData, BusinessProfile, IdSequences } from '../books.js';
import { newIdSequences } from '../books.js';
import { generateBooks } from './index.js';

export interface SampleBooksOptions {
  scale: number;
  seed: number;
  /** The businesses, in the order their records draw ids, with each one's start day. */
  businesses: { profile: BusinessProfile; today: string }[];
}

export interface SampleBooks {
  /** Per business id. */
  books: Map<number, BooksData>;
  /** The id sequences after the books drew theirs. */
  ids: IdSequences;
}

/** A copy for one sandbox, and a second copy of one business's books, made only when asked. */
export interface SampleBooksCopy extends SampleBooks {
  another(businessId: number): BooksData;
}

const KEPT = 8;
const made = new Map<string, SampleBooks>();

function generate(options: SampleBooksOptions, mainId: number): SampleBooks {
  const ids = newIdSequences();
  const books = new Map<number, BooksData>();
  for (const { profile, today } of options.businesses) {
    const scale = profile.id === mainId ? options.scale : 1;
    books.set(profile.id, generateBooks(profile, ids, { scale, seed: options.seed + profile.id, today }));
  }
  return { books, ids };
}

/** A copy of the sample books for these options; `mainId` is the business that `scale` applies to. */
export function sampleBooks(options: SampleBooksOptions, mainId: number): SampleBooksCopy {
  const key = JSON.stringify([options.scale, options.seed, mainId, options.businesses.map((b) => [b.profile.id, b.today])]);
  let kept = made.get(key);
  if (kept === undefined) {
    kept = generate(options, mainId);
    if (made.size >= KEPT) made.delete(made.keys().next().value as string);
    made.set(key, kept);
  }
  const source = kept;
  return {
    ...structuredClone(source),
    another: (businessId) => structuredClone(source.books.get(businessId) as BooksData),
  };
}
