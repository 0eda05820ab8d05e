// The sample books of both businesses, made once per process for each (scale, seed, start days) and copied
// for every sandbox that asks: generating them is most of a sandbox's start (about 45 ms at scale 1), a
// copy a tenth of that, and test runs start a sandbox per file or per test. The books are kept as JSON text
// (they are plain data: strings, numbers, arrays, objects) and each copy is parsed from it, which takes about
// half as long as structuredClone of the objects (2.6 ms against 4.7 ms at scale 1). Each caller gets its own
// copy, so a sandbox's changes stay its own. A pure function's results are the only state kept here.
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
/** Per options: each business's books as JSON text, and the id sequences after them. */
interface Kept {
  books: Map<number, string>;
  ids: IdSequences;
}
const made = new Map<string, Kept>();

function generate(options: SampleBooksOptions, mainId: number): Kept {
  const ids = newIdSequences();
  const books = new Map<number, string>();
  for (const { profile, today } of options.businesses) {
    const scale = profile.id === mainId ? options.scale : 1;
    books.set(profile.id, JSON.stringify(generateBooks(profile, ids, { scale, seed: options.seed + profile.id, today })));
  }
  return { books, ids };
}

const copyOf = (kept: Kept, businessId: number): BooksData => JSON.parse(kept.books.get(businessId) as string) as BooksData;

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
    books: new Map([...source.books.keys()].map((id) => [id, copyOf(source, id)])),
    ids: { ...source.ids },
    another: (businessId) => copyOf(source, businessId),
  };
}
