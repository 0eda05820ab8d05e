// Invoices: list, get, and create a draft that a person in the business reviews and sends.
import * as z from 'zod/v4';
import { type Invoice, InvoiceSchema, type InvoiceSummary, InvoiceSummarySchema } from '../src/api/schemas.js';
import { REVIEW_META_KEY } from '../src/views/catalog.js';
import type { ToolContext } from './context.js';
import { CREATE_HINTS, defineTool, READ_HINTS } from './define.js';
import { reviewDraft } from './draft-review.js';
import { money, NOT_SAVED, replayNote, shortQuantity } from './format.js';
import { listHandler } from './handlers.js';
import { invoiceIdOf, invoiceRef } from './invoice-ref.js';
import { summarizeDraft } from './invoice-summary.js';
import { decimalAmount, filterText, INVOICE_STATUSES, idempotencyKey, pageMeta, paging, recordId } from './params.js';

export { INVOICE_STATUSES };

const invoiceLine = (i: InvoiceSummary): string =>
  `#${i.id} ${i.number} ${i.status} ${i.customer.name} (customer ${i.customer.id}) subtotal ${money(i.currency, i.subtotal)}, ` +
  `tax ${money(i.currency, i.tax_total)}, total ${money(i.currency, i.total)}, ` +
  `balance ${money(i.currency, i.balance)}, issued ${i.issue_date}, due ${i.due_date}${i.sales_channel ? `, ${i.sales_channel}` : ''}`;

export const listInvoices = defineTool({
  name: 'list_invoices',
  title: 'List invoices',
  description:
    'Invoices (no lines), oldest first. Unpaid: any status but draft, void and paid, with balance > 0. Sums: report_owed, report_sales.',
  toolset: 'invoices',
  scope: 'invoices.read',
  input: z.object({
    ...paging,
    status: z.enum(INVOICE_STATUSES).optional(),
    customer_id: recordId('list_customers').optional(),
    sales_channel: filterText().describe('pos: till sales'),
  }),
  output: z.object({ data: z.array(InvoiceSummarySchema), meta: pageMeta }),
  annotations: READ_HINTS,
  handler: listHandler<InvoiceSummary>('invoices', invoiceLine),
});

export function invoiceText(inv: Invoice): string {
  const lines = inv.items.map(
    (l) =>
      `- ${shortQuantity(l.quantity)} x ${l.description} @ ${l.unit_price} = ${l.line_total} + tax ${l.tax_amount}${l.product_id ? ` (product ${l.product_id})` : ''}`,
  );
  return [invoiceLine(inv), ...lines, `portal: ${inv.portal_url}`].join('\n');
}

/** The draft review's checks, for its view; nothing for an invoice past draft. */
async function draftReview(ctx: ToolContext, invoice: Invoice): Promise<Record<string, unknown> | null> {
  const review = await reviewDraft(ctx, invoice);
  return review ? { [REVIEW_META_KEY]: review } : null;
}

export const getInvoice = defineTool({
  name: 'get_invoice',
  title: 'Get an invoice',
  description: 'One invoice with its lines and portal link, by id or number.',
  toolset: 'invoices',
  scope: 'invoices.read',
  input: z.object({ id: invoiceRef }),
  output: InvoiceSchema,
  annotations: READ_HINTS,
  view: 'draft-review',
  viewData: draftReview,
  async handler(ctx, { id }) {
    const invoice = await ctx.api.invoices.get(await invoiceIdOf(ctx, id));
    return { structured: invoice, text: invoiceText(invoice) };
  },
});

const line = z.object({
  quantity: z
    .union([z.number().positive(), z.string().regex(/^\d+(\.\d{1,6})?$/, 'a decimal such as "2.5"')])
    .describe('> 0, up to 6 decimals'),
  product_id: recordId('find_records').optional(),
  description: z.string().min(1).max(2000).optional(),
  unit_price: decimalAmount('unit_price', 4, '19.95').optional().describe('e.g. 19.95'),
  tax_category_id: z.number().int().min(1).optional().describe("Default: the product's, else the business's"),
});

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD');

export const createDraftInvoice = defineTool({
  name: 'create_draft_invoice',
  title: 'Draft an invoice',
  description:
    "Creates a DRAFT invoice, in the business's base currency, that a person reviews and sends; it cannot send. Each line: product_id, or description and unit_price.",
  toolset: 'invoices',
  scope: 'invoices.write',
  input: z.object({
    customer_id: recordId('find_records'),
    issue_date: date.optional().describe('YYYY-MM-DD, default today'),
    due_date: date.optional().describe('YYYY-MM-DD, default issue_date + 14'),
    items: z.array(line).min(1).max(200),
    notes: z.string().max(5000).optional(),
    terms: z.string().max(5000).optional(),
    idempotency_key: idempotencyKey,
  }),
  output: InvoiceSchema,
  annotations: CREATE_HINTS,
  write: { summarize: summarizeDraft },
  view: 'draft-review',
  viewData: draftReview,
  async handler({ api }, { idempotency_key, ...input }) {
    const created = await api.invoices.create(input, { idempotencyKey: idempotency_key });
    const inv = created.data;
    // The service makes every draft in the business's base currency: the one it answered with.
    const currency = `in ${inv.currency}, the business's base currency (drafts are made in it, no other)`;
    const made =
      api.mode === 'test'
        ? `${NOT_SAVED}\nThe draft as the service would make it, ${currency}:`
        : `Draft invoice ${inv.number} (id ${inv.id}) created ${currency}. It is a draft: it has not been sent. A person in the business reviews and sends it.`;
    const again = created.replayed ? `\n${replayNote(created)}` : '';
    return { structured: inv, text: `${made}${again}\n${invoiceText(inv)}` };
  },
});
