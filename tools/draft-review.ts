// What a reviewer should check on a draft, for its view: a line priced away from its product's default, the
// customer's money already overdue, and other drafts for the same customer made within a day of this one.
// Read from the service (the products on the lines, the customer's invoices); every figure an exact string.

import type { Invoice, InvoiceSummary } from '../src/api/schemas.js';
import { Decimal } from '../src/core/decimal.js';
import type { DraftReview, OverdueMoney, PriceChange, SimilarDraft } from '../src/views/review.js';
import type { ToolContext } from './context.js';

const DAY_MS = 24 * 60 * 60 * 1000;

async function priceChanges({ api }: ToolContext, invoice: Invoice): Promise<PriceChange[]> {
  const out: PriceChange[] = [];
  for (const [index, line] of invoice.items.entries()) {
    if (line.product_id == null) continue;
    // The single product's shape is left open by the spec: a product without a default price has none to differ from.
    const product = await api.products.get(line.product_id);
    const price = product.default_price;
    if (price === undefined || Decimal.parse(line.unit_price).equals(price)) continue;
    out.push({
      line: index + 1,
      product_id: product.id,
      product_name: product.name ?? `product ${product.id}`,
      unit_price: line.unit_price,
      default_price: price,
    });
  }
  return out;
}

/** The date part of a timestamp as the service writes it (the business's own day). */
const dayOf = (timestamp: string): string => timestamp.slice(0, 10);

/**
 * Overdue: what the service marks overdue, and part-paid invoices past their due date (the service leaves
 * those part_paid), as of the day the draft was made.
 */
function overdueMoney(invoices: InvoiceSummary[], today: string): OverdueMoney[] {
  const byCurrency = new Map<string, { count: number; balance: Decimal }>();
  for (const inv of invoices) {
    const late = inv.status === 'overdue' || (inv.status === 'part_paid' && inv.due_date < today);
    if (!late || !Decimal.parse(inv.balance).isPositive()) continue;
    const sum = byCurrency.get(inv.currency) ?? { count: 0, balance: Decimal.ZERO };
    byCurrency.set(inv.currency, { count: sum.count + 1, balance: sum.balance.plus(inv.balance) });
  }
  return [...byCurrency]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, s]) => ({ currency, count: s.count, balance: s.balance.toString() }));
}

function similarDrafts(invoices: InvoiceSummary[], draft: Invoice): SimilarDraft[] {
  const made = Date.parse(draft.created_at);
  return invoices
    .filter((inv) => inv.status === 'draft' && inv.id !== draft.id && Math.abs(Date.parse(inv.created_at) - made) <= DAY_MS)
    .map((inv) => ({
      id: inv.id,
      number: inv.number,
      currency: inv.currency,
      total: inv.total,
      created_at: inv.created_at,
      same_total: inv.currency === draft.currency && Decimal.parse(inv.total).equals(draft.total),
    }));
}

/** The review of a draft; null for an invoice past draft (there is nothing left to review before sending). */
export async function reviewDraft(ctx: ToolContext, invoice: Invoice): Promise<DraftReview | null> {
  if (invoice.status !== 'draft') return null;
  const customerInvoices: InvoiceSummary[] = [];
  for await (const inv of ctx.api.invoices.all({ customer_id: invoice.customer.id })) customerInvoices.push(inv);
  return {
    web_url: invoice.portal_url,
    price_changes: await priceChanges(ctx, invoice),
    overdue: overdueMoney(customerInvoices, dayOf(invoice.created_at)),
    similar_drafts: similarDrafts(customerInvoices, invoice),
  };
}
