// find_records: one search over customers, invoices, quotes and products, each term on its own.
import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from '../../../tools/define.js';
import type { CustomerRow, MirroredKind, MirrorReader } from '../../store/types.js';
import { asOf, asOfFields, asOfLine, freshBooks, rows } from '../fresh.js';
import { type FindBooks, type FoundTerm, findInBooks, textMatch } from './figures.js';
import { customersAtService, customersByName, kindsFor } from './reach.js';

function termText(f: FoundTerm): string[] {
  const hits = [
    ...f.customers.map(
      (c) => `customer #${c.id} ${c.code} ${c.name}${c.email ? ` ${c.email}` : ''}${c.status === 'active' ? '' : ` (${c.status})`}`,
    ),
    ...f.invoices.map(
      (i) =>
        `invoice #${i.id} ${i.number} ${i.status} ${i.customer_name} (${i.customer_id}) total ${i.currency} ${i.total}, balance ${i.balance}`,
    ),
    ...f.quotes.map((q) => `quote #${q.id} ${q.number} ${q.status} ${q.customer_name} (${q.customer_id}) total ${q.total}`),
    ...f.products.map(
      (p) =>
        `product #${p.id} ${p.name}${p.sku ? ` [${p.sku}]` : ''}${p.barcode ? ` barcode ${p.barcode}` : ''} ${p.type} price ${p.default_price}${p.is_active ? '' : ' (archived)'}`,
    ),
  ];
  return [`"${f.term}": ${hits.length === 0 ? 'nothing found' : `${hits.length} found`}`, ...hits.map((h) => `- ${h}`)];
}

/**
 * The records that could match the term, narrowed by the store (kinds it need not search left empty), and
 * customers the service found when given; findInBooks scores them.
 */
async function candidates(read: MirrorReader, term: string, kinds: readonly MirroredKind[], customers?: CustomerRow[]): Promise<FindBooks> {
  const match = textMatch(term);
  const numbers = kinds.includes('invoices');
  const [stored, invoices, quotes, products] = await Promise.all([
    customers ?? read.customers({ match }),
    numbers ? read.invoices({ number: term }) : [],
    numbers ? read.quotes({ number: term }) : [],
    read.products({ match }),
  ]);
  return { customers: stored, invoices, quotes, products };
}

export const findRecords = defineTool({
  name: 'find_records',
  title: 'Find records',
  description: 'Finds customers (name, code, email), invoices and quotes (number), products (name, SKU, barcode); each term on its own.',
  toolset: 'customers',
  scope: 'customers.read',
  books: true,
  input: z.object({
    search: z.array(z.string().min(1).max(200)).min(1).max(10).describe('Terms, e.g. ["Tui Logistics", "cedar bracket"]'),
    limit: z.number().int().min(1).max(50).default(5).describe('Matches per kind and term'),
  }),
  output: z.object({ ...asOf, results: rows }),
  annotations: READ_HINTS,
  async handler(ctx, args) {
    const kinds = kindsFor(args.search);
    const atService = await customersAtService(ctx, args.search);
    const { snapshot, freshness } = await freshBooks(ctx, atService ? kinds.filter((k) => k !== 'customers') : kinds);
    const live = atService ? await customersByName(ctx, args.search) : null;
    const results = await snapshot(async (read) => {
      const found: FoundTerm[][] = [];
      for (const term of args.search) found.push(findInBooks(await candidates(read, term, kinds, live?.get(term)), [term], args.limit));
      return found.flat();
    });
    const head = asOfLine(freshness) + (live ? ' Customers searched by name at the service (the mirror has not read them yet).' : '');
    return { structured: { ...asOfFields(freshness), results }, text: [head, ...results.flatMap(termText)].join('\n') };
  },
});
