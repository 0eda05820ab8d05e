// What the assistant may do with a key, in words the person reads: never more than the key's scopes,
// nor than the client asked for.
import { SCOPE_READ, SCOPE_WRITE } from '../oauth/resource.js';
import type { Choice } from './pages.js';

const READS: Record<string, string> = {
  'customers.read': 'customers',
  'invoices.read': 'invoices',
  'quotes.read': 'quotes',
  'payments.read': 'payments',
  'products.read': 'products',
};
const WRITES: Record<string, string> = { 'customers.write': 'customers', 'invoices.write': 'draft invoices' };

const list = (items: string[]): string => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** The choices the page offers, least first; empty when the key allows nothing the client asked for. */
export function accessChoices(keyScopes: readonly string[], requested: ReadonlySet<string>): Choice[] {
  const reads = keyScopes.flatMap((s) => (READS[s] ? [READS[s]] : []));
  const writes = keyScopes.flatMap((s) => (WRITES[s] ? [WRITES[s]] : []));
  const choices: Choice[] = [];
  if (reads.length > 0 && requested.has(SCOPE_READ)) choices.push({ value: 'read', label: `Read ${list(reads)}` });
  if (reads.length > 0 && writes.length > 0 && requested.has(SCOPE_WRITE)) {
    choices.push({ value: 'write', label: `Read ${list(reads)}, and create ${list(writes)} (a person sends every invoice)` });
  }
  return choices;
}

/** The resource scopes a client asked for: both when it named neither (it asked for the resource as a whole). */
export function requestedScopes(scope: unknown): Set<string> {
  const asked = new Set(typeof scope === 'string' ? scope.split(' ').filter(Boolean) : []);
  if (!asked.has(SCOPE_READ) && !asked.has(SCOPE_WRITE)) return new Set([...asked, SCOPE_READ, SCOPE_WRITE]);
  // Writing implies reading what one writes about.
  if (asked.has(SCOPE_WRITE)) asked.add(SCOPE_READ);
  return asked;
}
