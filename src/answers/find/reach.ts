// What a search must read: names are found in customers and products; codes, emails and numbers (a term with
// an @, or a digit and no space) in every kind. Customers the mirror has not read yet are looked up at the
// service by name (its `search`, one call a word) rather than read whole, so a cold search by name is quick.
import type { ToolContext } from '../../../tools/context.js';
import type { CustomerRow, MirroredKind } from '../../store/types.js';
import { nameWords } from './figures.js';

/** A term that may be a customer code or email, or an invoice or quote number (numbers come from sequences). */
export const mayBeIdentifier = (term: string): boolean => term.includes('@') || (/\d/.test(term) && !/\s/.test(term.trim()));

/** The kinds whose records these terms can match. */
export function kindsFor(terms: readonly string[]): MirroredKind[] {
  return terms.some(mayBeIdentifier) ? ['customers', 'invoices', 'quotes', 'products'] : ['customers', 'products'];
}

/**
 * Whether customers are looked up at the service: the mirror has not read them, and every term is a name
 * (the service searches names only).
 */
export async function customersAtService(ctx: ToolContext, terms: readonly string[]): Promise<boolean> {
  if (!ctx.books || terms.some(mayBeIdentifier)) return false;
  return (await ctx.books.neverRead(['customers'])).length > 0;
}

/**
 * The customers whose names could match each term, by the service's `search` (part of the name, letter case
 * aside) for the term's longest word: every word of a match is in its name, so none is missed.
 */
export async function customersByName(ctx: ToolContext, terms: readonly string[]): Promise<Map<string, CustomerRow[]>> {
  const byWord = new Map<string, CustomerRow[]>();
  const found = new Map<string, CustomerRow[]>();
  for (const term of terms) {
    const word = nameWords(term).sort((a, b) => b.length - a.length)[0];
    if (word !== undefined && !byWord.has(word)) {
      const customers: CustomerRow[] = [];
      for await (const c of ctx.api.customers.all({ search: word })) customers.push(c);
      byWord.set(word, customers);
    }
    found.set(term, word === undefined ? [] : (byWord.get(word) ?? []));
  }
  return found;
}
