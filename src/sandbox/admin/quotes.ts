// Admin: a quote written and sent from the console (the API cannot create one), on the live books. No webhook:
// no event kind covers a quote sent.
import type { FastifyInstance } from 'fastify';
import { Decimal, toAmount } from '../amounts.js';
import { FieldErrorList } from '../api-error.js';
import { formatCode, type Quote } from '../books.js';
import { addDays, isCalendarDate } from '../time.js';
import { quoteView } from '../views.js';
import type { World } from '../world.js';
import { businessOf } from './business.js';
import { adminRoute, objectBody } from './guard.js';

const VALID_DAYS = 30;

function sendQuote(world: World, businessId: number, body: Record<string, unknown>) {
  const { live } = world.business(businessId);
  const errors = new FieldErrorList();
  const customer = typeof body.customer_id === 'number' ? live.customers.get(body.customer_id) : undefined;
  if (!customer) errors.add('customer_id', 'customer_id must name a customer of this business');
  const total = Decimal.read(body.total);
  if (total === null || total.places > 2 || !total.isPositive()) {
    errors.add('total', 'total must be a positive decimal string with up to 2 places, such as "1200.00"');
  }
  const today = world.today(businessId);
  const validUntil = body.valid_until ?? addDays(today, VALID_DAYS);
  if (typeof validUntil !== 'string' || !isCalendarDate(validUntil) || validUntil < today) {
    errors.add('valid_until', `valid_until must be a date written YYYY-MM-DD, ${today} or later`);
  }
  errors.throwIfAny();
  const now = world.clock.now();
  world.ids.quote += 1;
  const quote: Quote = {
    id: world.ids.quote,
    number: formatCode('QUO', live.nextQuoteNumber),
    status: 'sent',
    customerId: customer?.id ?? 0,
    issue_date: today,
    valid_until: validUntil as string,
    total: toAmount(total as Decimal),
    acceptedMs: null,
    createdMs: now,
    updatedMs: now,
  };
  live.nextQuoteNumber += 1;
  live.quotes.add(quote);
  return { status: 201, body: { data: quoteView(world.viewContext(businessId, 'live'), quote) } };
}

export function registerQuoteAdmin(app: FastifyInstance, world: World, token: string): void {
  app.post(
    '/_sandbox/quotes',
    adminRoute(token, (request) => sendQuote(world, businessOf(world, request), objectBody(request))),
  );
}
