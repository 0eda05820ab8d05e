// The summary a person confirms before a draft invoice is created: customer, lines, and the subtotal
// before tax, worked out exactly from the line prices (product prices read from the books).
import { Decimal } from '../src/core/decimal.js';
import type { ToolContext } from './context.js';

interface DraftArgs {
  customer_id: number;
  items: {
    quantity: number | string;
    product_id?: number | undefined;
    description?: string | undefined;
    unit_price?: string | undefined;
  }[];
  issue_date?: string | undefined;
  due_date?: string | undefined;
}

export async function summarizeDraft({ api }: ToolContext, args: DraftArgs): Promise<string> {
  const customer = await api.customers.get(args.customer_id);
  let subtotal = Decimal.of(0n, 2);
  const lines: string[] = [];
  for (const item of args.items) {
    const product = item.product_id ? await api.products.get(item.product_id) : null;
    const price = item.unit_price ?? product?.default_price ?? '0';
    const name = item.description ?? product?.name ?? `product ${item.product_id}`;
    // The service's line rule: quantity x unit price, half-up to 2 places.
    const lineTotal = Decimal.parse(String(item.quantity)).times(price).roundHalfUp(2);
    subtotal = subtotal.plus(lineTotal);
    lines.push(`${item.quantity} x ${name} @ ${price} = ${lineTotal.toFixed(2)}`);
  }
  return [
    `Create a draft invoice for ${customer.name} (${customer.code})?`,
    ...lines,
    `Subtotal ${subtotal.toFixed(2)} before tax (the service adds tax). The draft is not sent: a person reviews and sends it.`,
  ].join('\n');
}
