// Quotes: list and get.
import * as z from 'zod/v4';
import { type Quote, QuoteSchema } from '../src/api/schemas.js';
import { defineTool, READ_HINTS } from './define.js';
import { getHandler, listHandler } from './handlers.js';
import { pageMeta, paging, recordId } from './params.js';

const QUOTE_STATUSES = ['draft', 'sent', 'viewed', 'accepted', 'declined', 'expired', 'converted', 'cancelled'] as const;

const quoteLine = (q: Quote): string =>
  `#${q.id} ${q.number} ${q.status} ${q.customer.name} (customer ${q.customer.id}) total ${q.total}, ` +
  `issued ${q.issue_date}, valid until ${q.valid_until}${q.accepted_at ? `, accepted ${q.accepted_at}` : ''}`;

export const listQuotes = defineTool({
  name: 'list_quotes',
  title: 'List quotes',
  description: 'Quotes, oldest first, by status.',
  toolset: 'quotes',
  scope: 'quotes.read',
  input: z.object({ ...paging, status: z.enum(QUOTE_STATUSES).optional() }),
  output: z.object({ data: z.array(QuoteSchema), meta: pageMeta }),
  annotations: READ_HINTS,
  handler: listHandler<Quote>('quotes', quoteLine),
});

export const getQuote = defineTool({
  name: 'get_quote',
  title: 'Get a quote',
  description: 'One quote: status, validity date and total.',
  toolset: 'quotes',
  scope: 'quotes.read',
  input: z.object({ id: recordId('list_quotes') }),
  output: QuoteSchema,
  annotations: READ_HINTS,
  handler: getHandler<Quote>('quotes', quoteLine),
});
