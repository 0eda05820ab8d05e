// Contract: Idempotency-Key on the two creates (spec "Limits: Idempotency"; open-points "Wire details"):
// replay with `Idempotent-Replayed: true` and no duplicate, 422 for the same key with another body, keys kept
// apart per endpoint, mode and key set, and forgotten after 24 hours on the sandbox clock.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceClock,
  authHeaders,
  get,
  type Json,
  makeKey,
  post,
  type SandboxHandle,
  type Session,
  send,
  signIn,
  start,
  tally,
} from './sandbox-http.js';

let sb: SandboxHandle;
let test: Session;
let live: Session;
let customerId: number;

beforeAll(async () => {
  sb = await start({ rateLimit: 1_000_000, signInLimit: 1000 });
  test = await signIn(sb.baseUrl, sb.keys.test);
  live = await signIn(sb.baseUrl, sb.keys.live);
  customerId = (await get(test, '/api/v1/customers?status=active&per_page=1')).body.data[0].id;
});

afterAll(async () => {
  await sb?.close();
});

const idem = (key = randomUUID()): Record<string, string> => ({ 'idempotency-key': key });
const lineInvoice = (lines: Json[]): Json => ({ customer_id: customerId, items: lines });

describe('Idempotency-Key', () => {
  it('replays a live customer create: same status and body, Idempotent-Replayed: true, no duplicate', async () => {
    const key = randomUUID();
    const name = `Replay Test ${key}`;
    const first = await post(live, '/api/v1/customers', { name, email: 'r@example.com' }, idem(key));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(live, '/api/v1/customers', { name, email: 'r@example.com' }, idem(key));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    // The same JSON value in another key order and spacing is the same request.
    const raw = `{ "email" : "r@example.com",\n  "name": ${JSON.stringify(name)} }`;
    const reordered = await send('POST', `${sb.baseUrl}/api/v1/customers`, {
      headers: authHeaders(live, { ...idem(key), 'content-type': 'application/json' }),
      raw,
    });
    expect(reordered.status).toBe(201);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.body).toEqual(first.body);
    const found = await get(live, `/api/v1/customers?search=${encodeURIComponent(name)}`);
    expect(found.body.meta.total).toBe(1);
    expect(found.body.data[0].id).toBe(first.body.data.id);
  });

  it('refuses the same key with another body with 422', async () => {
    const key = randomUUID();
    const first = await post(live, '/api/v1/customers', { name: 'Conflict One' }, idem(key));
    expect(first.status).toBe(201);
    const other = await post(live, '/api/v1/customers', { name: 'Conflict Two' }, idem(key));
    expect(other.status).toBe(422);
    expect(typeof other.body.message).toBe('string');
    expect(typeof other.body.errors).toBe('object');
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    const found = await get(live, '/api/v1/customers?search=Conflict%20Two');
    expect(found.body.meta.total).toBe(0);
  });

  it('replays a live invoice create without a second invoice', async () => {
    const key = randomUUID();
    const before = await tally(live, 'invoices');
    const body = lineInvoice([{ description: 'Once only', quantity: 1, unit_price: '10.00' }]);
    const first = await post(live, '/api/v1/invoices', body, idem(key));
    const again = await post(live, '/api/v1/invoices', body, idem(key));
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await tally(live, 'invoices')).total).toBe(before.total + 1);
    const changed = await post(live, '/api/v1/invoices', { ...body, notes: 'different' }, idem(key));
    expect(changed.status).toBe(422);
  });

  it('replays in test mode with the same response', async () => {
    const key = randomUUID();
    const body = { name: 'Test Replay' };
    const first = await post(test, '/api/v1/customers', body, idem(key));
    const again = await post(test, '/api/v1/customers', body, idem(key));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await post(test, '/api/v1/customers', { name: 'Test Replay 2' }, idem(key))).status).toBe(422);
  });

  it('keeps keys apart per endpoint, mode and key set', async () => {
    const key = randomUUID();
    const first = await post(live, '/api/v1/customers', { name: 'Scoped Key' }, idem(key));
    expect(first.status).toBe(201);
    const otherEndpoint = await post(
      live,
      '/api/v1/invoices',
      lineInvoice([{ description: 'x', quantity: 1, unit_price: '1.00' }]),
      idem(key),
    );
    expect(otherEndpoint.status).toBe(201);
    expect(otherEndpoint.headers['idempotent-replayed']).toBeUndefined();
    const otherMode = await post(test, '/api/v1/customers', { name: 'Scoped Key' }, idem(key));
    expect(otherMode.status).toBe(201);
    expect(otherMode.headers['idempotent-replayed']).toBeUndefined();
    const otherSet = await signIn(sb.baseUrl, await makeKey(sb, 'live', ['customers.write']));
    const otherKeySet = await post(otherSet, '/api/v1/customers', { name: 'Scoped Key' }, idem(key));
    expect(otherKeySet.status).toBe(201);
    expect(otherKeySet.headers['idempotent-replayed']).toBeUndefined();
    expect(otherKeySet.body.data.id).not.toBe(first.body.data.id);
  });

  it('without the header, two creates make two records', async () => {
    const a = await post(live, '/api/v1/customers', { name: 'No Key Twice' });
    const b = await post(live, '/api/v1/customers', { name: 'No Key Twice' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets a key after 24 hours on the sandbox clock', async () => {
    const key = randomUUID();
    const body = { name: 'Day Old Key' };
    const first = await post(live, '/api/v1/customers', body, idem(key));
    await advanceClock(sb, 23 * 3600);
    live = await signIn(sb.baseUrl, sb.keys.live);
    const within = await post(live, '/api/v1/customers', body, idem(key));
    expect(within.headers['idempotent-replayed']).toBe('true');
    await advanceClock(sb, 3600 + 1);
    live = await signIn(sb.baseUrl, sb.keys.live);
    const later = await post(live, '/api/v1/customers', body, idem(key));
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });
});
