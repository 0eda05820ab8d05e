// The two creates. Both honour Idempotency-Key (replay with `Idempotent-Replayed: true`, 422 for the same
// key with another body); test mode validates exactly as live and saves nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '../api-error.js';
import { type Answer, sessionRoute } from '../api-route.js';
import type { IdSequences } from '../books.js';
import type { Caller } from '../call.js';
import { buildCustomer, buildInvoice } from '../creates.js';
import { validateCustomer } from '../validate-customer.js';
import { validateInvoice } from '../validate-invoice.js';
import { customerView, invoiceView } from '../views.js';
import type { World } from '../world.js';

const MAX_KEY_LENGTH = 255;

function objectBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid({ body: ['the request body must be a JSON object'] });
  }
  return body as Record<string, unknown>;
}

/** Live creates take the next id; test creates show the id the record would get and keep nothing. */
function nextId(world: World, caller: Caller, kind: keyof IdSequences): number {
  if (caller.mode === 'live') {
    world.ids[kind] += 1;
    return world.ids[kind];
  }
  return world.ids[kind] + 1;
}

function idempotent(world: World, request: FastifyRequest, caller: Caller, endpoint: string, create: () => Answer): Answer {
  const raw = request.headers['idempotency-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined) return create();
  if (key.trim() === '' || key.length > MAX_KEY_LENGTH) {
    throw invalid({ 'Idempotency-Key': [`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters (a UUID is suggested)`] });
  }
  const scope = `${caller.keySet.setId}:${caller.mode}:${endpoint}`;
  const now = world.clock.now();
  const found = world.idempotency.lookup(scope, key, request.body, now);
  if (found.kind === 'conflict') {
    throw invalid({ 'Idempotency-Key': ['this Idempotency-Key was already used with a different request body'] });
  }
  if (found.kind === 'replay') {
    return { status: found.response.status, body: found.response.body, headers: { 'idempotent-replayed': 'true' } };
  }
  const answer = create();
  const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  world.idempotency.store(scope, key, request.body, { status: answer.status, body }, now);
  return { ...answer, body };
}

function createCustomer(world: World, request: FastifyRequest, caller: Caller): Answer {
  const input = validateCustomer(objectBody(request));
  const books = caller.books;
  const customer = buildCustomer(input, nextId(world, caller, 'customer'), books.nextCustomerCode, world.clock.now());
  if (caller.mode === 'live') {
    books.nextCustomerCode += 1;
    books.customers.add(customer);
  }
  return { status: 201, body: { data: customerView(caller.view, customer) } };
}

function createInvoice(world: World, request: FastifyRequest, caller: Caller): Answer {
  const profile = caller.business.profile;
  const input = validateInvoice(objectBody(request), {
    books: caller.books,
    taxCategories: profile.taxCategories,
    today: world.today(profile.id),
  });
  const books = caller.books;
  const invoice = buildInvoice(input, profile, nextId(world, caller, 'invoice'), books.nextInvoiceNumber, world.clock.now());
  if (caller.mode === 'live') {
    books.nextInvoiceNumber += 1;
    books.invoices.add(invoice);
  }
  return { status: 201, body: { data: invoiceView(caller.view, invoice) } };
}

export function registerCreateRoutes(app: FastifyInstance, world: World): void {
  app.post(
    '/api/v1/customers',
    sessionRoute(world, 'customers.write', (request, caller) =>
      idempotent(world, request, caller, 'customers', () => createCustomer(world, request, caller)),
    ),
  );
  app.post(
    '/api/v1/invoices',
    sessionRoute(world, 'invoices.write', (request, caller) =>
      idempotent(world, request, caller, 'invoices', () => createInvoice(world, request, caller)),
    ),
  );
}
