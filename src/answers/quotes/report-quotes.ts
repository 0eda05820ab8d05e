// report_quotes: open quotes, their value per currency, and which expire soon.
import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from '../../../tools/define.js';
import { money } from '../../../tools/format.js';
import { counted } from '../../core/counted.js';
import { asOf, asOfFields, asOfLine, freshBooks, limit, offsetArg, pageOf, rows } from '../fresh.js';
import { answerQuotes, type QuoteFigures } from './figures.js';

const figuresText = (f: QuoteFigures): string => `${counted(f.count, 'quote')}, ${money(f.currency, f.value)}`;

export const reportQuotes = defineTool({
  name: 'report_quotes',
  title: 'Open quotes',
  description: 'Open quotes (draft, sent, viewed): count and value per currency, and which expire within N days.',
  toolset: 'quotes',
  scope: 'quotes.read',
  books: true,
  input: z.object({
    expiring_days: z.number().int().min(0).max(3660).optional().describe('Valid until today + N or sooner'),
    customer_id: z.number().int().positive().optional().describe('From find_records'),
    limit: limit(400, 20),
    offset: offsetArg('Quotes'),
  }),
  output: z.object({ ...asOf, open: rows, expiring: rows.nullable(), quotes: rows, quotes_left_out: z.number().int() }),
  annotations: READ_HINTS,
  async handler(ctx, args) {
    const { read, freshness } = await freshBooks(ctx, ['quotes']);
    const quotes = await read.quotes(args.customer_id ? { customerId: args.customer_id } : {});
    const answer = answerQuotes(quotes, {
      today: freshness.today,
      expiringDays: args.expiring_days,
      customerId: args.customer_id,
      limit: args.limit,
      offset: args.offset,
    });
    const out = [`Open quotes${args.customer_id ? ` of customer ${args.customer_id}` : ''}. ${asOfLine(freshness)}`];
    out.push(...(answer.open.length > 0 ? answer.open.map((f) => `Open: ${figuresText(f)}`) : ['No open quotes.']));
    if (answer.expiring && args.expiring_days !== undefined) {
      const until = `expiring by ${counted(args.expiring_days, 'day')} from today`;
      out.push(...(answer.expiring.length > 0 ? answer.expiring.map((f) => `${until}: ${figuresText(f)}`) : [`None ${until}.`]));
    }
    out.push(`Quotes, soonest to expire first${pageOf(answer.quotes.length, answer.quotes_left_out, args.offset)}:`);
    for (const q of answer.quotes) {
      out.push(
        `- #${q.id} ${q.number} ${q.status} ${q.customer_name} (${q.customer_id}) ${money(q.currency, q.total)}, valid until ${q.valid_until} (${counted(q.days_left, 'day')})`,
      );
    }
    return { structured: { ...asOfFields(freshness), ...answer }, text: out.join('\n') };
  },
});
