// Contract: the webhook receiver against the sandbox's real, signed deliveries over HTTP on 127.0.0.1, and
// against crafted ones (forged, stale, replayed, oversized, malformed, 1,000 random mutations). The
// deliveries and the mirrors are of the small second business: a mirror's first read of it is a few calls.
import { createHmac } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { startMirror } from '../../src/books/mirror.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import { createEventBus, type EventBus } from '../../src/events/bus.js';
import { type BooksEvent, eventUris } from '../../src/events/event.js';
import { startWebhookListener, type WebhookListener } from '../../src/events/receiver.js';
import { DEFAULT_HTTP_LIMITS } from '../../src/http/limits.js';
import { captureLogs, type LogCapture } from '../support/logs.js';
import { ALL_SCOPES } from '../support/sandbox.js';
import { businessOps, type Expected, matches } from './events-ops.js';
import { admin, eventually, makeKey, type SandboxHandle, type Session, signIn, start } from './sandbox-http.js';

const SMALL = 2;
let sb: SandboxHandle;
let live: Session;
let listener: WebhookListener;
let bus: EventBus;
let logs: LogCapture;
let secret: string;
const heard: { event: BooksEvent; uris: readonly string[] }[] = [];
const invalidated: string[] = [];
const signatures: string[] = [];

beforeAll(async () => {
  sb = await start({ webhookBackoffMs: 50, rateLimit: 100_000, signInLimit: 1000 });
  live = await signIn(sb.baseUrl, await makeKey(sb, 'live', [...ALL_SCOPES], SMALL));
  logs = captureLogs('trace');
  bus = createEventBus({ invalidate: (kind, id) => invalidated.push(`${kind}/${id}`) });
  bus.listen((event, uris) => heard.push({ event, uris }));
  // The sandbox hands out the signing secret when the URL is registered: take a free port, register it,
  // then start the listener there with that secret.
  const port = await freePort();
  const reply = await admin(sb, 'POST', '/webhooks', { url: `http://127.0.0.1:${port}/webhooks`, business_id: SMALL });
  expect(reply.status).toBe(201);
  secret = reply.body.secret;
  listener = await startWebhookListener({ host: '127.0.0.1', port, limits: DEFAULT_HTTP_LIMITS, secret, bus, logger: logs.logger });
  expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

afterAll(async () => {
  await sb?.close();
  await listener?.close();
});

interface Delivery {
  body: string | Buffer;
  signature?: string;
  contentType?: string;
}

async function deliver(d: Delivery): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'content-type': d.contentType ?? 'application/json' };
  if (d.signature !== undefined) headers['x-service-signature'] = d.signature;
  const res = await request(listener.url, { method: 'POST', headers, body: d.body });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Resolves once the sandbox has had a 2xx for every one of these events' deliveries. */
async function delivered(events: Expected[]): Promise<void> {
  await eventually(async () => {
    const attempts: { event_id: string; status: number | null }[] = (await admin(sb, 'GET', '/deliveries')).body.data;
    const done = (id: string | undefined) => attempts.some((a) => a.event_id === id && a.status !== null && a.status < 300);
    return events.every((e) => done(e.eventId)) ? true : undefined;
  }, 3000);
}

const hmac = (key: string, t: string, body: string | Buffer) => createHmac('sha256', key).update(`${t}.`).update(body).digest('hex');

function signed(body: string | Buffer, t = Math.floor(Date.now() / 1000), key = secret): Delivery {
  const signature = `t=${t},v1=${hmac(key, String(t), body)}`;
  signatures.push(signature.slice(-64));
  return { body, signature };
}

let crafted = 0;
function craftedBody(): string {
  crafted++;
  return JSON.stringify({
    id: `evt_crafted${crafted}`,
    event: 'invoice.sent',
    created_at: '2026-11-23T10:00:00+13:00',
    data: {
      invoice: { id: 900_000 + crafted, status: 'sent', updated_at: `2026-11-23T10:00:${String(crafted % 60).padStart(2, '0')}+13:00` },
    },
  });
}

describe('deliveries from the sandbox', () => {
  it('publishes the right event, with the right URIs, within a second of each business operation', async () => {
    const ops = await businessOps(sb, live, SMALL);
    for (const op of ops) {
      const before = heard.length;
      const started = Date.now();
      const expected = await op.run();
      for (const want of expected) {
        const got = await eventually(() => heard.slice(before).find((h) => matches(h.event, h.uris, want)), 1000);
        expect(got.event.id, op.name).toBe(want.eventId);
        expect(got.event.source).toBe('webhook');
        expect(invalidated).toContain(`${got.event.record.kind}/${got.event.record.id}`);
      }
      expect(Date.now() - started).toBeLessThan(1500);
      expect(heard.length - before, op.name).toBe(expected.length);
    }
  });
});

describe('webhooks and the mirror on one bus', () => {
  it('each change notifies once, though both report it', async () => {
    const key = await makeKey(sb, 'live', undefined, SMALL);
    const api = createApiClient({ baseUrl: sb.baseUrl, keyId: key.key_id, secret: key.secret }, { logger: logs.logger });
    // The mirror reports into a bus of its own that forwards to the receiver's: its own history shows it
    // worked each change out too, and the shared bus must still notify once.
    const mirrorBus = createEventBus({ invalidate: () => undefined });
    mirrorBus.listen((event) => void bus.publish(event));
    const store = await openMirrorStore({ location: { kind: 'memory' }, identity: `${sb.baseUrl}|${key.key_id}`, warn: () => undefined });
    const mirror = await startMirror({ api, store, bus: mirrorBus, logger: logs.logger, pollSeconds: 0 });
    try {
      const ops = await businessOps(sb, live, SMALL);
      await mirror.round();
      for (const op of ops) {
        const before = heard.length;
        const expected = await op.run();
        await mirror.round();
        for (const want of expected) {
          await eventually(() => mirrorBus.recent().find((e) => e.source === 'poll' && matches(e, eventUris(e), want)), 3000);
        }
        // Both have reported it: the mirror (above), and the webhook (the sandbox had its 204 after the bus took it).
        await delivered(expected);
        const got = heard.slice(before);
        expect(got.map((h) => h.event.kind).sort(), op.name).toEqual(expected.map((e) => e.kind).sort());
        for (const want of expected) expect(got.filter((h) => matches(h.event, h.uris, want))).toHaveLength(1);
      }
    } finally {
      await mirror.stop();
      await store.close();
      await api.close();
    }
    expect(mirror.stats().calls).toBeGreaterThan(0);
  });

  it('a webhook updates the record in the mirror at once, before any sync', async () => {
    const key = await makeKey(sb, 'live', undefined, SMALL);
    const api = createApiClient({ baseUrl: sb.baseUrl, keyId: key.key_id, secret: key.secret }, { logger: logs.logger });
    const store = await openMirrorStore({ location: { kind: 'memory' }, identity: `${sb.baseUrl}|${key.key_id}`, warn: () => undefined });
    const mirror = await startMirror({ api, store, bus, logger: logs.logger, pollSeconds: 0 });
    try {
      const ops = await businessOps(sb, live, SMALL);
      await mirror.round();
      const calls = mirror.stats().calls;
      const [accepted] = await ops[2]!.run();
      const id = Number(accepted!.record.split('/').pop());
      const stored = await eventually(async () => {
        const quote = await store.read.raw('quotes', id);
        return quote?.status === 'accepted' ? quote : undefined;
      }, 3000);
      expect(stored.accepted_at).toEqual(expect.any(String));
      expect(mirror.stats().calls - calls).toBeLessThanOrEqual(1);
    } finally {
      await mirror.stop();
      await store.close();
      await api.close();
    }
  });
});

describe('refusals', () => {
  /** Runs `act` and checks that nothing reached the bus meanwhile. */
  async function publishesNothing(act: () => Promise<void>): Promise<void> {
    const before = heard.length;
    const recent = bus.recent().length;
    await act();
    expect(heard.length).toBe(before);
    expect(bus.recent().length).toBe(recent);
  }

  it('a crafted delivery signed with the secret is accepted (the baseline of the refusals below)', async () => {
    const before = heard.length;
    expect((await deliver(signed(craftedBody()))).status).toBe(204);
    expect(heard.length).toBe(before + 1);
  });

  it('forged (wrong secret), unsigned and stale deliveries: 400 with a short message, nothing published', async () => {
    await publishesNothing(async () => {
      const forged = await deliver(signed(craftedBody(), undefined, 'whsec_not_the_secret'));
      expect(forged.status).toBe(400);
      expect(JSON.parse(forged.text)).toEqual({ message: 'signature does not match' });
      const unsigned = await deliver({ body: craftedBody() });
      expect(unsigned.status).toBe(400);
      expect(JSON.parse(unsigned.text).message).toMatch(/missing/);
      const stale = await deliver(signed(craftedBody(), Math.floor(Date.now() / 1000) - 301));
      expect(stale.status).toBe(400);
      expect(JSON.parse(stale.text).message).toMatch(/300 seconds/);
      const future = await deliver(signed(craftedBody(), Math.floor(Date.now() / 1000) + 301));
      expect(future.status).toBe(400);
    });
  });

  it('a replayed delivery (same event id) answers 204 and is published once', async () => {
    const body = craftedBody();
    const before = heard.length;
    expect((await deliver(signed(body))).status).toBe(204);
    expect((await deliver(signed(body))).status).toBe(204);
    // The same id with a fresh signature a second later is still the same event.
    expect((await deliver(signed(body, Math.floor(Date.now() / 1000) + 1))).status).toBe(204);
    expect(heard.length).toBe(before + 1);
    expect(heard.at(-1)?.event.id).toBe(JSON.parse(body).id);
  });

  it('an oversized body (over 256 KB) is refused with 413 before any other check', async () => {
    await publishesNothing(async () => {
      const big = JSON.stringify({
        id: 'evt_big',
        event: 'invoice.sent',
        created_at: 'x',
        data: { invoice: { id: 1, pad: 'x'.repeat(300 * 1024) } },
      });
      const reply = await deliver(signed(big));
      expect(reply.status).toBe(413);
      expect((await deliver({ body: big, signature: 'garbage' })).status).toBe(413);
    });
  });

  it('malformed JSON or an unexpected shape with a valid signature: 400; an unknown kind: 204, not published', async () => {
    await publishesNothing(async () => {
      const bad = await deliver(signed('{"id": "evt_x", '));
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.text)).toEqual({ message: 'body is not JSON' });
      expect((await deliver(signed(JSON.stringify({ id: 'evt_y', event: 'invoice.sent', created_at: 'x', data: {} })))).status).toBe(400);
      expect((await deliver(signed(JSON.stringify([1, 2])))).status).toBe(400);
      const unknown = JSON.stringify({ id: 'evt_future', event: 'customer.created', created_at: 'x', data: { customer: { id: 1 } } });
      expect((await deliver(signed(unknown))).status).toBe(204);
    });
  });

  it('takes any content type as raw bytes (the signature is over the bytes, not the JSON)', async () => {
    const before = heard.length;
    const d = signed(craftedBody());
    expect((await deliver({ ...d, contentType: 'text/plain' })).status).toBe(204);
    expect(heard.length).toBe(before + 1);
  });

  it('1,000 random mutations of a valid signed delivery: none accepted, nothing published', async () => {
    let seed = 0x5eed;
    const rand = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) >>> 0;
      return Math.floor(((seed >>> 8) / 2 ** 24) * n);
    };
    // Header text stays printable and without white space: HTTP trims or refuses the rest before us.
    const printable = () => String.fromCharCode(0x21 + rand(0x7e - 0x21 + 1));
    const mutateText = (text: string): string => {
      const at = rand(text.length + 1);
      switch (rand(3)) {
        case 0: {
          const i = Math.min(at, text.length - 1);
          let c = printable();
          while (c === text[i]) c = printable();
          return text.slice(0, i) + c + text.slice(i + 1);
        }
        case 1:
          return text.slice(0, at) + printable() + text.slice(at);
        default: {
          const i = Math.min(at, text.length - 1);
          return text.slice(0, i) + text.slice(i + 1);
        }
      }
    };
    const mutateBytes = (body: Buffer): Buffer => {
      const at = rand(body.length);
      switch (rand(3)) {
        case 0: {
          const copy = Buffer.from(body);
          copy[at] = (copy[at] as number) ^ (1 + rand(255));
          return copy;
        }
        case 1:
          return Buffer.concat([body.subarray(0, at), Buffer.from([rand(256)]), body.subarray(at)]);
        default:
          return Buffer.concat([body.subarray(0, at), body.subarray(at + 1)]);
      }
    };

    const body = Buffer.from(craftedBody());
    const t = String(Math.floor(Date.now() / 1000));
    const v1 = hmac(secret, t, body);
    const statuses = new Map<number, number>();
    await publishesNothing(async () => {
      for (let i = 0; i < 1000; i++) {
        let mutated: Buffer = body;
        let mt = t;
        let mv = v1;
        const target = rand(3);
        if (target === 0) mutated = mutateBytes(body);
        else if (target === 1) mt = mutateText(t);
        else mv = mutateText(v1);
        const reply = await deliver({ body: mutated, signature: `t=${mt},v1=${mv}` });
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        expect(reply.status, `mutation ${i} of ${['body', 't', 'v1'][target]}`).toBeGreaterThanOrEqual(300);
      }
    });
    expect([...statuses.keys()]).toEqual([400]);
    // The unmutated delivery is accepted: the mutations, not the setup, were refused.
    expect((await deliver({ body, signature: `t=${t},v1=${v1}` })).status).toBe(204);
  });

  it('never logs the secret or a signature', () => {
    const text = logs.text();
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('whsec_');
    for (const s of signatures) expect(text).not.toContain(s);
  });
});

describe('registerWebhookRoute on an existing app', () => {
  it("adds the route in its own scope: the app's other routes keep their JSON parser and body limit", async () => {
    const { default: fastify } = await import('fastify');
    const { registerWebhookRoute } = await import('../../src/events/receiver.js');
    const app = fastify({ logger: false });
    app.post('/other', async (req) => ({ got: req.body }));
    await registerWebhookRoute(app, { secret, bus, logger: logs.logger, path: '/hooks' });
    const other = await app.inject({ method: 'POST', url: '/other', payload: { a: 1 } });
    expect(other.json()).toEqual({ got: { a: 1 } });
    // The receiver's catch-all raw parser does not leak: the app still has no parser for other types.
    expect(
      (await app.inject({ method: 'POST', url: '/other', headers: { 'content-type': 'application/octet-stream' }, payload: 'x' }))
        .statusCode,
    ).toBe(415);
    expect((await app.inject({ method: 'POST', url: '/other', headers: { 'content-type': 'text/plain' }, payload: 'x' })).json()).toEqual({
      got: 'x',
    });
    const body = craftedBody();
    const d = signed(body);
    const hook = await app.inject({
      method: 'POST',
      url: '/hooks',
      headers: { 'content-type': 'application/json', 'x-service-signature': d.signature as string },
      payload: body,
    });
    expect(hook.statusCode).toBe(204);
    await app.close();
  });
});

describe('a delivery the bus cannot take', () => {
  it("answers 500 and acts on the service's retry", async () => {
    let broken = true;
    const fragile = createEventBus({
      invalidate: () => {
        if (broken) throw new Error('cache unavailable');
      },
    });
    const got: string[] = [];
    fragile.listen((e) => got.push(e.id));
    const { default: fastify } = await import('fastify');
    const { registerWebhookRoute } = await import('../../src/events/receiver.js');
    const app = fastify({ logger: false });
    await registerWebhookRoute(app, { secret, bus: fragile, logger: logs.logger });
    const body = craftedBody();
    const d = signed(body);
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/webhooks',
        headers: { 'content-type': 'application/json', 'x-service-signature': d.signature as string },
        payload: body,
      });
    expect((await send()).statusCode).toBe(500);
    broken = false;
    expect((await send()).statusCode).toBe(204);
    expect((await send()).statusCode).toBe(204);
    expect(got).toEqual([JSON.parse(body).id]);
    await app.close();
  });
});

describe('one route for several endpoints (hosted mode: one per business)', () => {
  it('checks each with its own secret and bus, remembers event ids per endpoint, and refuses one that does not exist as a forged delivery', async () => {
    const { default: fastify } = await import('fastify');
    const { registerWebhookRoute } = await import('../../src/events/receiver.js');
    const got = new Map<string, string[]>();
    const readied: string[] = [];
    const targets = new Map(
      ['one', 'two'].map((name) => {
        const own = createEventBus({ invalidate: () => undefined });
        got.set(name, []);
        own.listen((e) => got.get(name)?.push(e.id));
        const ready = async () => void readied.push(name);
        return [name, { id: name, secret: `whsec_${name}_endpoint_secret`, bus: own, ready }] as const;
      }),
    );
    const app = fastify({ logger: false });
    await registerWebhookRoute(app, {
      path: '/webhooks/:id',
      targetOf: async (req) => targets.get((req.params as { id: string }).id) ?? null,
      logger: logs.logger,
    });
    const body = craftedBody();
    const send = async (to: string, key: string) => {
      const res = await app.inject({
        method: 'POST',
        url: `/webhooks/${to}`,
        headers: { 'content-type': 'application/json', 'x-service-signature': signed(body, undefined, key).signature as string },
        payload: body,
      });
      return { status: res.statusCode, type: res.headers['content-type'], body: res.body };
    };
    const forged = await send('one', 'whsec_two_endpoint_secret');
    expect(forged.status).toBe(400);
    expect(await send('three', 'whsec_one_endpoint_secret')).toEqual(forged);
    expect((await send('one', 'whsec_one_endpoint_secret')).status).toBe(204);
    expect((await send('one', 'whsec_one_endpoint_secret')).status).toBe(204);
    expect((await send('two', 'whsec_two_endpoint_secret')).status).toBe(204);
    const id = JSON.parse(body).id;
    expect(Object.fromEntries(got)).toEqual({ one: [id], two: [id] });
    expect(readied).toEqual(['one', 'two']);
    await app.close();
  });

  it("keeps each endpoint's memory of event ids its own: another's deliveries do not push them out", async () => {
    const { default: fastify } = await import('fastify');
    const { registerWebhookRoute } = await import('../../src/events/receiver.js');
    // As many as each endpoint remembers (10,000 unless told): fewer here, for speed.
    const remembered = 200;
    const victim = createEventBus({ invalidate: () => undefined });
    const acted: string[] = [];
    victim.listen((e) => acted.push(e.id));
    // Asked for by each delivery acted on (hosted mode: its tenant's mirror opened and in use).
    let readied = 0;
    const ready = async () => void readied++;
    const targets = new Map([
      ['victim', { id: 'victim', secret: 'whsec_victim_endpoint_secret', bus: victim, ready }],
      ['other', { id: 'other', secret: 'whsec_other_endpoint_secret', bus: createEventBus({ invalidate: () => undefined }) }],
    ]);
    const app = fastify({ logger: false });
    await registerWebhookRoute(app, {
      path: '/webhooks/:id',
      targetOf: async (req) => targets.get((req.params as { id: string }).id) ?? null,
      logger: logs.logger,
      remembered,
    });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const send = async (to: string, body: string): Promise<number> => {
      const key = targets.get(to)?.secret as string;
      const t = String(Math.floor(Date.now() / 1000));
      const res = await request(`${base}/webhooks/${to}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': `t=${t},v1=${hmac(key, t, body)}` },
        body,
      });
      await res.body.dump();
      return res.statusCode;
    };
    try {
      const event = craftedBody();
      expect(await send('victim', event)).toBe(204);
      // More correctly signed events than an endpoint remembers, to the other endpoint, a few at a time.
      const others = Array.from({ length: 2 * remembered }, (_, i) =>
        JSON.stringify({ id: `evt_other${i}`, event: 'stock.low', created_at: '2026-11-23T10:00:00Z', data: { product: { id: i + 1 } } }),
      );
      for (let i = 0; i < others.length; i += 50) {
        const statuses = await Promise.all(others.slice(i, i + 50).map((body) => send('other', body)));
        expect(statuses.every((s) => s === 204)).toBe(true);
      }
      // The victim's event delivered again: answered, not acted on again.
      expect(await send('victim', event)).toBe(204);
      expect(readied).toBe(1);
      expect(acted).toEqual([JSON.parse(event).id]);
    } finally {
      await app.close();
    }
  });
});
