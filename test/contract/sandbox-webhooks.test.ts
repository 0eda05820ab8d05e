// Contract: signed webhooks (spec "Events"; open-points "Events (webhooks)", "The business side"). A receiver
// on 127.0.0.1 checks every delivery with an HMAC-SHA256 computed here, the body shape, `stock.low` once on
// crossing, and retries with a small back-off.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  cents,
  eventually,
  get,
  isNzTimestamp,
  type Json,
  listAll,
  makeKey,
  post,
  type SandboxHandle,
  type Session,
  scaled,
  signIn,
  sleep,
  sortedKeys,
  start,
  verifySignature,
} from './sandbox-http.js';
import { checkInvoice, checkPayment, checkProduct, checkQuote } from './sandbox-records.js';

interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Json;
}

/** A webhook receiver: records every delivery and answers with `answer(delivery, attemptOfThisEvent)`. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  answer: (d: Delivery, attempt: number) => number = () => 204;
  #server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const delivery: Delivery = { headers: req.headers, raw, body: JSON.parse(raw) };
      this.deliveries.push(delivery);
      const attempt = this.deliveries.filter((d) => d.body.id === delivery.body.id).length;
      res.writeHead(this.answer(delivery, attempt)).end();
    });
  });
  url = '';

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks`;
  }

  of(eventId: string): Delivery[] {
    return this.deliveries.filter((d) => d.body.id === eventId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

let sb: SandboxHandle;
let live: Session;
const receiver = new Receiver();
let secret: string;

beforeAll(async () => {
  sb = await start({ webhookBackoffMs: 20, rateLimit: 1_000_000, signInLimit: 1000 });
  live = await signIn(sb.baseUrl, sb.keys.live);
  await receiver.listen();
  const reply = await admin(sb, 'POST', '/webhooks', { url: receiver.url });
  expect(reply.status).toBe(201);
  secret = reply.body.secret;
});

afterAll(async () => {
  await sb?.close();
  await receiver.close();
});

async function sandboxNowSeconds(): Promise<number> {
  return Date.parse((await admin(sb, 'GET', '/clock')).body.now) / 1000;
}

/** Waits for the delivery of `eventId`, then checks its signature and envelope. Returns its body. */
async function delivered(eventId: string, kind: string, noun: string): Promise<Json> {
  const d = await eventually(() => receiver.of(eventId)[0]);
  const signature = d.headers['x-service-signature'] as string | undefined;
  const check = verifySignature(signature, d.raw, secret);
  expect(check.valid, `signature of ${eventId}`).toBe(true);
  expect(Math.abs(check.t - (await sandboxNowSeconds()))).toBeLessThanOrEqual(300);
  expect(d.headers['content-type']).toMatch(/^application\/json/);
  expect(sortedKeys(d.body)).toEqual(['created_at', 'data', 'event', 'id']);
  expect(d.body.id).toMatch(/^evt_[A-Za-z0-9]+$/);
  expect(d.body.event).toBe(kind);
  expect(isNzTimestamp(d.body.created_at), `d.body.created_at: ${d.body.created_at}`).toBe(true);
  expect(sortedKeys(d.body.data)).toEqual([noun]);
  return d.body;
}

async function draftInvoice(customerId: number, lines: Json[]): Promise<Json> {
  const reply = await post(live, '/api/v1/invoices', { customer_id: customerId, items: lines }, { 'idempotency-key': randomUUID() });
  expect(reply.status).toBe(201);
  return reply.body.data;
}

describe('registering an endpoint', () => {
  it('returns an id and a whsec_ signing secret', async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]+$/);
    const bad = await admin(sb, 'POST', '/webhooks', { url: 'not a url' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('url');
  });
});

describe('events', () => {
  let customerId: number;
  let invoice: Json;

  beforeAll(async () => {
    customerId = (await get(live, '/api/v1/customers?status=active&per_page=1')).body.data[0].id;
    invoice = await draftInvoice(customerId, [{ description: 'Timber', quantity: '4', unit_price: '25.00' }]);
  });

  it('invoice.sent when the business sends a draft, signed and shaped as open-points says', async () => {
    const sent = await admin(sb, 'POST', `/invoices/${invoice.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.event_ids).toHaveLength(1);
    const body = await delivered(sent.body.event_ids[0], 'invoice.sent', 'invoice');
    checkInvoice(body.data.invoice, true, sb.baseUrl);
    expect(body.data.invoice).toMatchObject({ id: invoice.id, number: invoice.number, status: 'sent', total: '115.00' });
    const read = await get(live, `/api/v1/invoices/${invoice.id}`);
    expect(read.body.data.status).toBe('sent');
    expect(read.body.data).toEqual(body.data.invoice);
    // A wrong secret or a changed body fails the same check.
    const d = receiver.of(body.id)[0]!;
    expect(verifySignature(d.headers['x-service-signature'] as string, d.raw, 'whsec_wrong').valid).toBe(false);
    expect(verifySignature(d.headers['x-service-signature'] as string, `${d.raw} `, secret).valid).toBe(false);
  });

  it('payment.recorded for a part payment (part_paid), then invoice.paid when paid in full', async () => {
    const part = await admin(sb, 'POST', '/payments', {
      customer_id: customerId,
      amount: '40.00',
      method: 'bank_transfer',
      reference: 'Part one',
      allocations: [{ invoice_id: invoice.id, amount: '40.00' }],
    });
    expect(part.status).toBe(201);
    expect(part.body.event_ids).toHaveLength(1);
    const recorded = await delivered(part.body.event_ids[0], 'payment.recorded', 'payment');
    checkPayment(recorded.data.payment);
    expect(recorded.data.payment).toMatchObject({
      amount: '40.00',
      method: 'bank_transfer',
      reference: 'Part one',
      customer: { id: customerId },
      allocations: [{ invoice_id: invoice.id, invoice_number: invoice.number, amount: '40.00' }],
    });
    const half = await get(live, `/api/v1/invoices/${invoice.id}`);
    expect(half.body.data).toMatchObject({ status: 'part_paid', balance: '75.00', total: '115.00' });
    const readPayment = await get(live, `/api/v1/payments/${recorded.data.payment.id}`);
    expect(readPayment.body.data).toEqual(recorded.data.payment);

    const rest = await admin(sb, 'POST', '/payments', {
      customer_id: customerId,
      amount: '75.00',
      method: 'card',
      allocations: [{ invoice_id: invoice.id, amount: '75.00' }],
    });
    expect(rest.status).toBe(201);
    expect(rest.body.event_ids).toHaveLength(2);
    const [paymentEvent, paidEvent] = rest.body.event_ids;
    await delivered(paymentEvent, 'payment.recorded', 'payment');
    const paid = await delivered(paidEvent, 'invoice.paid', 'invoice');
    expect(paid.data.invoice).toMatchObject({ id: invoice.id, status: 'paid', balance: '0.00' });
    const full = await get(live, `/api/v1/invoices/${invoice.id}`);
    expect(full.body.data).toMatchObject({ status: 'paid', balance: '0.00' });
    const payments = await listAll(live, `/api/v1/payments?customer_id=${customerId}`);
    const ours = payments.filter((p) => p.allocations.some((a: Json) => a.invoice_id === invoice.id));
    expect(ours.map((p) => p.amount)).toEqual(['40.00', '75.00']);
    expect(ours.reduce((s, p) => s + cents(p.amount), 0n)).toBe(cents('115.00'));
  });

  it('quote.accepted when the business accepts a quote', async () => {
    const quotes = await listAll(live, '/api/v1/quotes?status=sent');
    const quote = quotes[0];
    const accepted = await admin(sb, 'POST', `/quotes/${quote.id}/accept`);
    expect(accepted.status).toBe(200);
    const body = await delivered(accepted.body.event_ids[0], 'quote.accepted', 'quote');
    checkQuote(body.data.quote);
    expect(body.data.quote).toMatchObject({ id: quote.id, status: 'accepted' });
    expect(isNzTimestamp(body.data.quote.accepted_at), `body.data.quote.accepted_at: ${body.data.quote.accepted_at}`).toBe(true);
    const read = await get(live, `/api/v1/quotes/${quote.id}`);
    expect(read.body.data).toEqual(body.data.quote);
    // The business acts on the live books; the test-mode sample data never changes.
    const testSession = await signIn(sb.baseUrl, sb.keys.test);
    expect((await get(testSession, `/api/v1/quotes/${quote.id}`)).body.data).toEqual(quote);
    const since = await listAll(live, `/api/v1/quotes?updated_since=${encodeURIComponent(body.data.quote.updated_at)}`);
    expect(since.map((q) => q.id)).toContain(quote.id);
  });

  it('stock.low once when stock crosses to the reorder level; a further fall sends nothing', async () => {
    const tracked = await listAll(live, '/api/v1/products?track_stock=true&low_stock=false&active=true');
    const q = (text: string): bigint => scaled(text, 6);
    const text = (n: bigint): string =>
      `${n < 0n ? '-' : ''}${(n < 0n ? -n : n) / 1_000_000n}.${String((n < 0n ? -n : n) % 1_000_000n).padStart(6, '0')}`;
    const product = tracked[0];
    const level = q(product.stock.reorder_level);
    const movement = (branchId: number, quantity: string) =>
      admin(sb, 'POST', '/stock-movements', { product_id: product.id, branch_id: branchId, quantity });
    // Empty every branch but the first, then bring the first down so the total lands on the reorder level:
    // only the movement that crosses the level may send stock.low.
    const [first, ...others] = product.stock.branches as Json[];
    const plan = [
      ...others.map((b) => ({ branchId: b.branch_id, delta: -q(b.on_hand) })),
      { branchId: first.branch_id, delta: level - q(first.on_hand) },
    ].filter((step) => step.delta !== 0n);
    let total = q(product.stock.on_hand);
    const crossings: string[] = [];
    let down: Json;
    for (const step of plan) {
      const after = total + step.delta;
      const reply = await movement(step.branchId, text(step.delta));
      expect(reply.status).toBe(201);
      expect(q(reply.body.data.stock.on_hand)).toBe(after);
      const crosses = total > level && after <= level;
      expect(reply.body.event_ids).toHaveLength(crosses ? 1 : 0);
      if (crosses) {
        crossings.push(reply.body.event_ids[0]);
        down = reply.body;
      }
      total = after;
    }
    expect(total).toBe(level);
    expect(crossings).toHaveLength(1);
    expect(down.data.stock.low).toBe(true);
    const body = await delivered(crossings[0]!, 'stock.low', 'product');
    checkProduct(body.data.product);
    expect(body.data.product).toMatchObject({ id: product.id, name: product.name, stock: { low: true } });
    expect(Date.parse(body.data.product.updated_at)).toBeGreaterThan(Date.parse(product.updated_at));
    const low = await listAll(live, '/api/v1/products?low_stock=true');
    expect(low.map((p) => p.id)).toContain(product.id);
    const since = await listAll(live, `/api/v1/products?updated_since=${encodeURIComponent(body.data.product.updated_at)}`);
    expect(since.map((p) => p.id)).toContain(product.id);

    const further = await movement(first.branch_id, '-1');
    expect(further.status).toBe(201);
    expect(further.body.event_ids).toEqual([]);
    const risesButStaysLow = await movement(first.branch_id, '0.5');
    expect(risesButStaysLow.body.event_ids).toEqual([]);
    await sleep(150);
    const stockEvents = receiver.deliveries.filter((d) => d.body.event === 'stock.low' && d.body.data.product.id === product.id);
    expect(stockEvents).toHaveLength(1);

    // Back above the level and down again is a new crossing.
    expect((await movement(first.branch_id, '5')).body.event_ids).toEqual([]);
    const again = await movement(first.branch_id, '-5');
    expect(again.body.event_ids).toHaveLength(1);
    await delivered(again.body.event_ids[0], 'stock.low', 'product');
  });
});

describe('delivery', () => {
  it('retries after a 500 with back-off, the same event and body each time, each signed', async () => {
    receiver.answer = (_d, attempt) => (attempt <= 2 ? 500 : 204);
    try {
      const customerId = (await get(live, '/api/v1/customers?status=active&per_page=1&page=2')).body.data[0].id;
      const inv = await draftInvoice(customerId, [{ description: 'Retry me', quantity: 1, unit_price: '9.99' }]);
      const sent = await admin(sb, 'POST', `/invoices/${inv.id}/send`);
      const eventId = sent.body.event_ids[0];
      const tries = await eventually(() => (receiver.of(eventId).length >= 3 ? receiver.of(eventId) : undefined));
      expect(new Set(tries.map((d) => d.raw)).size).toBe(1);
      for (const d of tries) expect(verifySignature(d.headers['x-service-signature'] as string, d.raw, secret).valid).toBe(true);
      const log = await eventually(async () => {
        const all = (await admin(sb, 'GET', '/deliveries')).body.data.filter((a: Json) => a.event_id === eventId);
        return all.length >= 3 && all.every((a: Json) => a.status !== null) ? all : undefined;
      });
      expect(log.map((a: Json) => [a.attempt, a.status])).toEqual([
        [1, 500],
        [2, 500],
        [3, 204],
      ]);
      await sleep(100);
      expect(receiver.of(eventId)).toHaveLength(3);
    } finally {
      receiver.answer = () => 204;
    }
  });

  it('gives up after 5 retries (6 attempts in all)', async () => {
    receiver.answer = () => 500;
    try {
      const quote = (await listAll(live, '/api/v1/quotes?status=viewed'))[0];
      const accepted = await admin(sb, 'POST', `/quotes/${quote.id}/accept`);
      const eventId = accepted.body.event_ids[0];
      // Back-off 20 ms × (1 + 2 + 4 + 8 + 16) = 620 ms.
      await eventually(() => (receiver.of(eventId).length >= 6 ? true : undefined), 3000);
      await sleep(400);
      expect(receiver.of(eventId)).toHaveLength(6);
      const log = (await admin(sb, 'GET', '/deliveries')).body.data.filter((a: Json) => a.event_id === eventId);
      expect(log.map((a: Json) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      receiver.answer = () => 204;
    }
  });

  it("sends a business's events only to that business's endpoints", async () => {
    const other = new Receiver();
    await other.listen();
    try {
      const registered = await admin(sb, 'POST', '/webhooks', { url: other.url, business_id: 2 });
      expect(registered.status).toBe(201);
      const key = await makeKey(sb, 'live', ['customers.read', 'invoices.write'], 2);
      const theirs = await signIn(sb.baseUrl, key);
      const customerId = (await get(theirs, '/api/v1/customers?status=active&per_page=1')).body.data[0].id;
      const draft = await post(theirs, '/api/v1/invoices', {
        customer_id: customerId,
        items: [{ description: 'Beans', quantity: 2, unit_price: '18.00' }],
      });
      expect(draft.status).toBe(201);
      const sent = await admin(sb, 'POST', `/invoices/${draft.body.data.id}/send?business_id=2`);
      expect(sent.status).toBe(200);
      const eventId = sent.body.event_ids[0];
      const d = await eventually(() => other.of(eventId)[0]);
      expect(verifySignature(d.headers['x-service-signature'] as string, d.raw, registered.body.secret).valid).toBe(true);
      expect(d.body.data.invoice.id).toBe(draft.body.data.id);
      await sleep(100);
      expect(receiver.of(eventId)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
