// Admin: what people in the business do in the console. Each acts on the live books and emits its event.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bodyDecimal, Decimal, toAmount } from '../amounts.js';
import { FieldErrorList } from '../api-error.js';
import type { Invoice, Payment, PaymentMethod } from '../books.js';
import { findRecord } from '../routes/lists.js';
import { invoiceView, isLowStock, paymentView, productView, quoteView } from '../views.js';
import type { World } from '../world.js';
import { adminRoute, conflict, objectBody, readBusinessId } from './guard.js';
import { readPayment } from './payment-input.js';

/** The business an admin operation acts on: `?business_id=N`, else the main one; 422 for no such business. */
export function businessOf(world: World, request: FastifyRequest): number {
  const errors = new FieldErrorList();
  const id = readBusinessId(world, request.query as Record<string, unknown>, errors);
  errors.throwIfAny();
  return id;
}

export function registerBusinessAdmin(app: FastifyInstance, world: World, token: string): void {
  app.post(
    '/_sandbox/invoices/:id/send',
    adminRoute(token, (request) => {
      const businessId = businessOf(world, request);
      const { live, profile } = world.business(businessId);
      const invoice = findRecord(live.invoices, (request.params as { id: string }).id, 'invoice');
      if (invoice.status !== 'draft' && invoice.status !== 'approved') {
        throw conflict(`Invoice ${invoice.number} is ${invoice.status}; only a draft or approved invoice can be sent.`);
      }
      invoice.status = 'sent';
      live.invoices.touch(invoice, world.clock.now());
      const data = invoiceView(world.viewContext(businessId, 'live'), invoice);
      const eventId = world.webhooks.emit(businessId, profile.timeZone, 'invoice.sent', { invoice: data });
      return { status: 200, body: { data, event_ids: [eventId] } };
    }),
  );
  app.post(
    '/_sandbox/payments',
    adminRoute(token, (request) => recordPayment(world, businessOf(world, request), objectBody(request))),
  );
  app.post(
    '/_sandbox/quotes/:id/accept',
    adminRoute(token, (request) => {
      const businessId = businessOf(world, request);
      const { live, profile } = world.business(businessId);
      const quote = findRecord(live.quotes, (request.params as { id: string }).id, 'quote');
      if (!['draft', 'sent', 'viewed'].includes(quote.status)) {
        throw conflict(`Quote ${quote.number} is ${quote.status}; only a draft, sent or viewed quote can be accepted.`);
      }
      const now = world.clock.now();
      quote.status = 'accepted';
      quote.acceptedMs = now;
      live.quotes.touch(quote, now);
      const data = quoteView(world.viewContext(businessId, 'live'), quote);
      const eventId = world.webhooks.emit(businessId, profile.timeZone, 'quote.accepted', { quote: data });
      return { status: 200, body: { data, event_ids: [eventId] } };
    }),
  );
  app.post(
    '/_sandbox/stock-movements',
    adminRoute(token, (request) => moveStock(world, businessOf(world, request), objectBody(request))),
  );
}

function recordPayment(world: World, businessId: number, body: Record<string, unknown>) {
  const { live, profile } = world.business(businessId);
  const input = readPayment(body, live, profile.currency);
  const now = world.clock.now();
  world.ids.payment += 1;
  const payment: Payment = {
    id: world.ids.payment,
    customerId: input.customerId,
    amount: input.amount,
    currency: input.currency,
    payment_date: world.today(businessId),
    method: input.method as PaymentMethod,
    reference: input.reference,
    allocations: input.allocations.map((a) => ({ invoice_id: a.invoice.id, amount: a.amount })),
    createdMs: now,
    updatedMs: now,
  };
  live.payments.add(payment);
  const paidOff: Invoice[] = [];
  for (const { invoice, amount } of input.allocations) {
    const balance = Decimal.parse(invoice.balance).minus(amount);
    invoice.balance = toAmount(balance);
    invoice.status = balance.isZero() ? 'paid' : 'part_paid';
    if (invoice.status === 'paid') paidOff.push(invoice);
    live.invoices.touch(invoice, now);
  }
  const ctx = world.viewContext(businessId, 'live');
  const data = paymentView(ctx, payment);
  const eventIds = [world.webhooks.emit(businessId, profile.timeZone, 'payment.recorded', { payment: data })];
  for (const invoice of paidOff) {
    eventIds.push(world.webhooks.emit(businessId, profile.timeZone, 'invoice.paid', { invoice: invoiceView(ctx, invoice) }));
  }
  return { status: 201, body: { data, event_ids: eventIds } };
}

function moveStock(world: World, businessId: number, body: Record<string, unknown>) {
  const { live, profile } = world.business(businessId);
  const errors = new FieldErrorList();
  const product = typeof body.product_id === 'number' ? live.products.get(body.product_id) : undefined;
  if (!product) errors.add('product_id', 'product_id must name a product of this business');
  else if (!product.track_stock || !product.stock) errors.add('product_id', 'product_id names a product whose stock is not tracked');
  const branch = product?.stock?.branches.find((b) => b.branch_id === body.branch_id);
  if (product?.stock && !branch) errors.add('branch_id', `branch_id must be one of: ${profile.branches.map((b) => b.id).join(', ')}`);
  const quantity = bodyDecimal(body.quantity);
  if (quantity === null || quantity.places > 6 || quantity.isZero()) {
    errors.add('quantity', 'quantity must be a non-zero signed decimal (up to 6 places): positive adds stock, negative removes it');
  }
  errors.throwIfAny();
  if (!product || !branch) throw new Error('unreachable: validated above');
  const wasLow = isLowStock(product);
  branch.on_hand = Decimal.parse(branch.on_hand)
    .plus(quantity as Decimal)
    .toShortString();
  live.products.touch(product, world.clock.now());
  const data = productView(world.viewContext(businessId, 'live'), product);
  const eventIds: string[] = [];
  if (!wasLow && isLowStock(product)) {
    eventIds.push(world.webhooks.emit(businessId, profile.timeZone, 'stock.low', { product: data }));
  }
  return { status: 201, body: { data, event_ids: eventIds } };
}
