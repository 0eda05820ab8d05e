// report_customer: one customer's balance per currency, unpaid invoices with their age, latest payments and
// open quotes, by customer_id or a search by code, name or email.
import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from '../../../tools/define.js';
import { money } from '../../../tools/format.js';
import { counted } from '../../core/counted.js';
import { RefusedQuestion } from '../../core/refused.js';
import type { CustomerRow, MirrorReader } from '../../store/types.js';
import { resolveCustomer, textMatch } from '../find/figures.js';
import { asOf, asOfFields, asOfLine, freshBooks, paymentLine, rows } from '../fresh.js';
import { answerCustomer, type CustomerAnswer } from './figures.js';

const RECENT_PAYMENTS = 5;

function pickOne(candidates: CustomerRow[], ref: string): CustomerRow {
  if (candidates.length === 1) return candidates[0] as CustomerRow;
  if (candidates.length === 0)
    throw new RefusedQuestion(`No customer matches "${ref}" by code, name or email: try find_records with part of the name.`);
  const names = candidates.map((c) => `${c.code} ${c.name} (id ${c.id})`).join('; ');
  throw new RefusedQuestion(`"${ref}" fits ${counted(candidates.length, 'customer')}: ${names}. Send customer_id with one of these ids.`);
}

interface CustomerArgs {
  customer_id?: number | undefined;
  search?: string | undefined;
}

/** Both or neither: refused before any read, since either one dropped could answer about another customer. */
function checkOneCustomerArg(args: CustomerArgs): void {
  if ((args.customer_id === undefined) === (args.search === undefined)) {
    throw new RefusedQuestion('Send one of customer_id (from find_records, e.g. 12) or search (code CUS-00012, name or email).');
  }
}

/** The one customer asked for: by id, or by a search that fits exactly one. */
async function theCustomer(read: MirrorReader, args: CustomerArgs): Promise<CustomerRow> {
  if (args.customer_id !== undefined) {
    const found = await read.customer(args.customer_id);
    if (!found)
      throw new RefusedQuestion(`No customer has id ${args.customer_id}: find the id with find_records, or send search with the name.`);
    return found;
  }
  const ref = (args.search as string).trim();
  return pickOne(resolveCustomer(await read.customers({ match: textMatch(ref) }), ref), ref);
}

function customerText(a: CustomerAnswer, head: string): string {
  const c = a.customer;
  const out = [`${head}`, `Customer #${c.id} ${c.code} ${c.name}${c.email ? ` ${c.email}` : ''} (${c.status}).`];
  out.push(
    ...(a.balances.length > 0
      ? a.balances.map((b) => `Owes ${money(b.currency, b.balance)} on ${counted(b.count, 'invoice')}; past due ${b.past_due}.`)
      : ['Owes nothing.']),
  );
  for (const i of a.unpaid) {
    out.push(
      `- #${i.id} ${i.number} ${i.status}, issued ${i.issue_date}, due ${i.due_date}${i.days_past_due > 0 ? ` (${counted(i.days_past_due, 'day')} past)` : ''}, balance ${money(i.currency, i.balance)} of ${i.total}`,
    );
  }
  out.push(a.payments.length > 0 ? `Latest payments (up to ${RECENT_PAYMENTS}):` : 'No payments.');
  for (const p of a.payments) out.push(paymentLine(p, '', p.paid.length > 0 ? ` paid ${p.paid.join(', ')}` : ''));
  out.push(a.open_quotes.length > 0 ? 'Open quotes:' : 'No open quotes.');
  for (const q of a.open_quotes) out.push(`- #${q.id} ${q.number} ${q.status} ${money(q.currency, q.total)}, valid until ${q.valid_until}`);
  return out.join('\n');
}

export const reportCustomer = defineTool({
  name: 'report_customer',
  title: 'One customer',
  description: "One customer's balance per currency, unpaid invoices with their age, latest payments and open quotes.",
  toolset: 'customers',
  scope: 'customers.read',
  books: true,
  input: z.object({
    customer_id: z.number().int().positive().optional().describe('From find_records'),
    search: z.string().min(1).max(255).optional().describe('Or: code (CUS-00012), name or email'),
  }),
  output: z.object({ ...asOf, customer: z.looseObject({}), balances: rows, unpaid: rows, payments: rows, open_quotes: rows }),
  annotations: READ_HINTS,
  async handler(ctx, args) {
    checkOneCustomerArg(args);
    const { snapshot, freshness } = await freshBooks(ctx, ['customers', 'invoices', 'payments', 'quotes']);
    // One state of the books: a payment listed is in the balances it paid.
    const answer = await snapshot(async (read) => {
      const customer = await theCustomer(read, args);
      const invoices = await read.invoices({ customerId: customer.id, receivable: true });
      const payments = await read.payments({ customerId: customer.id });
      const quotes = await read.quotes({ customerId: customer.id });
      return answerCustomer(customer, { invoices, payments, quotes }, freshness.today, RECENT_PAYMENTS);
    });
    return { structured: { ...asOfFields(freshness), ...answer }, text: customerText(answer, asOfLine(freshness)) };
  },
});
