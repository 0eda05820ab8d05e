// A count and its noun, as every text of ours writes one: "1 invoice", "2 invoices", "0 invoices". Here, in the
// lowest layer, so the service's client, the answers, the tools and the views' pages all write counts one way.

/** The noun's plural where adding "s" is wrong: "status" → "statuses", "branch" → "branches", "entry" → "entries". */
const pluralOf = (one: string): string =>
  /(s|x|z|ch|sh)$/.test(one) ? `${one}es` : /[^aeiou]y$/.test(one) ? `${one.slice(0, -1)}ies` : `${one}s`;

/** The noun for n of them: one for exactly 1, else its plural (given, or made by the rules above). */
export const nounFor = (n: number, one: string, many: string = pluralOf(one)): string => (n === 1 ? one : many);

/** "1 invoice", "232 invoices". */
export const counted = (n: number, one: string, many?: string): string => `${n} ${nounFor(n, one, many)}`;
