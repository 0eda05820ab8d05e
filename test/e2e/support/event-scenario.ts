// One pass of the business's day, watched through the MCP server: each operation must reach the
// watcher's subscription on every URI it changes within `limitMs`, and a read right after shows the new
// state (the event invalidated the server's cached reads).

import { expect } from 'vitest';
import { Exact } from '../../support/exact.js';
import type { BusinessOps } from './business-ops.js';
import type { Watcher } from './mcp-watchers.js';

async function within(w: Watcher, uris: string[], since: number, limitMs: number): Promise<void> {
  for (const uri of uris) {
    const at = await w.updated(uri, since, limitMs + 500);
    expect(at - since, `${uri} announced ${at - since} ms after the change`).toBeLessThanOrEqual(limitMs);
  }
}

export async function watchBusinessDay(w: Watcher, ops: BusinessOps, limitMs: number): Promise<void> {
  const invoice = await ops.draftInvoice();
  const product = await ops.productAboveReorder();
  const quoteId = await ops.openQuote();
  const firstPayment = await ops.nextPaymentId();
  const uri = {
    invoice: `invoicing://invoices/${invoice.id}`,
    partPayment: `invoicing://payments/${firstPayment}`,
    fullPayment: `invoicing://payments/${firstPayment + 1}`,
    quote: `invoicing://quotes/${quoteId}`,
    product: `invoicing://products/${product.id}`,
    lowStock: 'invoicing://products/low-stock',
    events: 'invoicing://events',
  };
  expect(w.subscribable, 'the server advertises resources.subscribe').toBe(true);
  await w.subscribe(Object.values(uri));
  expect((await w.readJson(uri.invoice)).status).toBe('draft');

  let since = Date.now();
  await ops.sendInvoice(invoice.id);
  await within(w, [uri.invoice, uri.events], since, limitMs);
  expect((await w.readJson(uri.invoice)).status).toBe('sent');

  since = Date.now();
  expect(await ops.pay(invoice.id, '40.00')).toBe(firstPayment);
  await within(w, [uri.partPayment, uri.invoice], since, limitMs);
  const partPaid = await w.readJson(uri.invoice);
  expect(partPaid.status).toBe('part_paid');
  expect(partPaid.balance).toBe(Exact.of(invoice.total).minus('40.00').toFixed(2));
  expect((await w.readJson(uri.partPayment)).amount).toBe('40.00');

  since = Date.now();
  await ops.pay(invoice.id, Exact.of(invoice.total).minus('40.00').toFixed(2));
  await within(w, [uri.fullPayment, uri.invoice], since, limitMs);
  expect((await w.readJson(uri.invoice)).status).toBe('paid');

  since = Date.now();
  await ops.acceptQuote(quoteId);
  await within(w, [uri.quote], since, limitMs);
  expect((await w.readJson(uri.quote)).status).toBe('accepted');

  since = Date.now();
  await ops.dropToReorder(product);
  await within(w, [uri.product, uri.lowStock], since, limitMs);
  expect((await w.readJson(uri.product)).stock.low).toBe(true);
  const lowStock = await w.readJson(uri.lowStock);
  expect(lowStock.products.map((p: { id: number }) => p.id)).toContain(product.id);

  const feed = await w.readJson(uri.events);
  const kinds = feed.events.map((e: { event: string; resource: string }) => `${e.event} ${e.resource}`);
  expect(kinds).toEqual(
    expect.arrayContaining([
      `invoice.sent ${uri.invoice}`,
      `payment.recorded ${uri.partPayment}`,
      `payment.recorded ${uri.fullPayment}`,
      `invoice.paid ${uri.invoice}`,
      `quote.accepted ${uri.quote}`,
      `stock.low ${uri.product}`,
    ]),
  );
}
