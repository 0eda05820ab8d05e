// Contract: refusals with their bodies (spec "Errors", "Scopes", "Refusals"; open-points "Wire details"):
// 403 with required_scope, 403 for the plan and the developer account, 404 for other business's records and
// for ids that never existed or are not integers, 422 with field paths. 401s are in sandbox-auth, 429s in
// sandbox-limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  get,
  type Json,
  listAll,
  makeKey,
  post,
  type Reply,
  type SandboxHandle,
  type Session,
  send,
  signIn,
  signInRaw,
  sortedKeys,
  start,
} from './sandbox-http.js';
import { RESOURCES } from './sandbox-records.js';

const ALL_SCOPES = [
  'customers.read',
  'invoices.read',
  'quotes.read',
  'payments.read',
  'products.read',
  'customers.write',
  'invoices.write',
];

let sb: SandboxHandle;
let test: Session;
let live: Session;
let activeCustomer: number;
let archivedCustomer: number;
let archivedProduct: number;

beforeAll(async () => {
  sb = await start({ rateLimit: 1_000_000, signInLimit: 1000 });
  test = await signIn(sb.baseUrl, sb.keys.test);
  live = await signIn(sb.baseUrl, sb.keys.live);
  activeCustomer = (await get(test, '/api/v1/customers?status=active&per_page=1')).body.data[0].id;
  archivedCustomer = (await get(test, '/api/v1/customers?status=archived&per_page=1')).body.data[0].id;
  archivedProduct = (await get(test, '/api/v1/products?active=false&per_page=1')).body.data[0].id;
});

afterAll(async () => {
  await sb?.close();
});

const validCustomer = { name: 'Scope Check Ltd' };
const validInvoice = (): Json => ({ customer_id: activeCustomer, items: [{ description: 'x', quantity: 1, unit_price: '1.00' }] });

/** Every endpoint that needs a scope, called the way a client would call it. */
const ENDPOINTS: { scope: string; call: (s: Session) => Promise<Reply> }[] = [
  ...RESOURCES.flatMap((r) => [
    { scope: `${r}.read`, call: (s: Session) => get(s, `/api/v1/${r}`) },
    { scope: `${r}.read`, call: (s: Session) => get(s, `/api/v1/${r}/1`) },
  ]),
  { scope: 'customers.write', call: (s) => post(s, '/api/v1/customers', validCustomer) },
  { scope: 'invoices.write', call: (s) => post(s, '/api/v1/invoices', validInvoice()) },
];

function expect403Scope(reply: Reply, scope: string): void {
  expect(reply.status).toBe(403);
  expect(sortedKeys(reply.body)).toEqual(['message', 'required_scope']);
  expect(reply.body.required_scope).toBe(scope);
  expect(typeof reply.body.message).toBe('string');
}

function expect403(reply: Reply, pattern: RegExp): void {
  expect(reply.status).toBe(403);
  expect(sortedKeys(reply.body)).toEqual(['message']);
  expect(reply.body.message).toMatch(pattern);
}

describe('403: scopes', () => {
  it('refuses every endpoint to a key without its scope, naming the scope in required_scope', async () => {
    for (const { scope, call } of ENDPOINTS) {
      const session = await signIn(
        sb.baseUrl,
        await makeKey(
          sb,
          'test',
          ALL_SCOPES.filter((s) => s !== scope),
        ),
      );
      const refused = await call(session);
      expect403Scope(refused, scope);
      expect(refused.headers['x-service-mode']).toBe('test');
      expect(refused.headers['x-ratelimit-limit']).toBeDefined();
      const granted = await call(await signIn(sb.baseUrl, await makeKey(sb, 'test', [scope])));
      expect([200, 201, 404]).toContain(granted.status);
    }
  });

  it('lets a key with no scope ticked read everything and write nothing', async () => {
    for (const scopes of [[], undefined]) {
      const session = await signIn(sb.baseUrl, await makeKey(sb, 'live', scopes));
      for (const r of RESOURCES) {
        const list = await get(session, `/api/v1/${r}?per_page=1`);
        expect(list.status).toBe(200);
        expect((await get(session, `/api/v1/${r}/${list.body.data[0].id}`)).status).toBe(200);
      }
      expect403Scope(await post(session, '/api/v1/customers', validCustomer), 'customers.write');
      expect403Scope(await post(session, '/api/v1/invoices', validInvoice()), 'invoices.write');
      // The scope is checked before the body: an invalid body is still 403.
      expect403Scope(await post(session, '/api/v1/invoices', {}), 'invoices.write');
    }
    const customers = await get(live, '/api/v1/customers?search=Scope%20Check');
    expect(customers.body.meta.total).toBe(0);
  });

  it('needs no scope for ping and sign-out', async () => {
    const session = await signIn(sb.baseUrl, await makeKey(sb, 'test', ['products.read']));
    expect((await get(session, '/api/ping')).status).toBe(200);
    expect403Scope(await get(session, '/api/v1/customers'), 'customers.read');
    const out = await send('DELETE', `${sb.baseUrl}/api/v1/auth/token`, {
      headers: { authorization: `Bearer ${session.token}`, 'x-service-key': session.keyId },
    });
    expect(out.status).toBe(200);
  });
});

describe('403: plan and developer account', () => {
  it('refuses sign-in and calls while the plan excludes the API; signing in again does not help', async () => {
    const session = await signIn(sb.baseUrl, sb.keys.test);
    const other = await signIn(sb.baseUrl, await makeKey(sb, 'test', undefined, 2));
    try {
      expect((await admin(sb, 'PUT', '/plan', { api_access: false })).status).toBe(200);
      expect403(await get(session, '/api/v1/customers'), /plan/i);
      expect403(await get(session, '/api/ping'), /plan/i);
      expect403(await post(session, '/api/v1/customers', validCustomer), /plan/i);
      expect403(await signInRaw(sb.baseUrl, sb.keys.test), /plan/i);
      expect403(await signInRaw(sb.baseUrl, sb.keys.live), /plan/i);
      // The plan is the business's: the other business's key goes on.
      expect((await get(other, '/api/ping')).status).toBe(200);
    } finally {
      expect((await admin(sb, 'PUT', '/plan', { api_access: true })).status).toBe(200);
    }
    expect((await get(session, '/api/v1/customers?per_page=1')).status).toBe(200);
    expect((await signInRaw(sb.baseUrl, sb.keys.test)).status).toBe(201);
  });

  it('refuses sign-in and calls while the developer account is suspended', async () => {
    const session = await signIn(sb.baseUrl, sb.keys.live);
    try {
      expect((await admin(sb, 'PUT', '/developer', { suspended: true })).status).toBe(200);
      expect403(await get(session, '/api/v1/invoices'), /developer/i);
      expect403(await signInRaw(sb.baseUrl, sb.keys.live), /developer/i);
      expect403(await signInRaw(sb.baseUrl, sb.keys.test), /developer/i);
    } finally {
      expect((await admin(sb, 'PUT', '/developer', { suspended: false })).status).toBe(200);
    }
    expect((await get(session, '/api/v1/invoices?per_page=1')).status).toBe(200);
  });
});

describe('404', () => {
  function expect404(reply: Reply): void {
    expect(reply.status).toBe(404);
    expect(sortedKeys(reply.body)).toEqual(['message']);
    expect(typeof reply.body.message).toBe('string');
  }

  it('for ids that never existed and ids that are not integers, on every resource', async () => {
    for (const r of RESOURCES) {
      for (const id of ['999999999', '0', 'abc', '1.5', '-1', '1e2', '0x1', '%20', '9'.repeat(30)]) {
        const reply = await get(test, `/api/v1/${r}/${id}`);
        expect(reply.status, `${r}/${id}`).toBe(404);
        expect404(reply);
        expect(reply.headers['x-service-mode']).toBe('test');
      }
    }
  });

  it("for the other business's records, both ways, with the same body as a record that never existed", async () => {
    const otherLive = await signIn(sb.baseUrl, await makeKey(sb, 'live', undefined, 2));
    const otherTest = await signIn(sb.baseUrl, await makeKey(sb, 'test', undefined, 2));
    const ping = await get(otherLive, '/api/ping');
    expect(ping.body.business.id).not.toBe((await get(live, '/api/ping')).body.business.id);
    for (const [mine, theirs] of [
      [live, otherLive],
      [test, otherTest],
    ] as const) {
      for (const r of RESOURCES) {
        const ours = (await listAll(mine, `/api/v1/${r}`)).map((x) => x.id);
        const other = (await listAll(theirs, `/api/v1/${r}`)).map((x) => x.id);
        expect(other.length, r).toBeGreaterThan(0);
        expect(
          ours.filter((id) => other.includes(id)),
          r,
        ).toEqual([]);
        const foreign = await get(mine, `/api/v1/${r}/${other[0]}`);
        const never = await get(mine, `/api/v1/${r}/999999999`);
        expect404(foreign);
        expect(foreign.body.message.replace(String(other[0]), 'N')).toBe(never.body.message.replace('999999999', 'N'));
        expect404(await get(theirs, `/api/v1/${r}/${ours[0]}`));
        expect((await get(theirs, `/api/v1/${r}/${other[0]}`)).status).toBe(200);
      }
    }
  });

  it("tells a key of the other business its session's expiry in the headers as sign-in gave it", async () => {
    const other = await signIn(sb.baseUrl, await makeKey(sb, 'live', undefined, 2));
    const reply = await get(other, '/api/ping');
    expect(reply.headers['x-service-session-expires']).toBe(other.signIn.expires_at);
    expect(reply.body.session_expires_at).toBe(other.signIn.expires_at);
  });
});

describe('422 with field paths', () => {
  function expect422(reply: Reply, fields: string[]): void {
    expect(reply.status).toBe(422);
    expect(sortedKeys(reply.body)).toEqual(['errors', 'message']);
    expect(typeof reply.body.message).toBe('string');
    expect(Object.keys(reply.body.errors).sort()).toEqual([...fields].sort());
    for (const messages of Object.values(reply.body.errors)) {
      expect(Array.isArray(messages)).toBe(true);
      expect((messages as unknown[]).length).toBeGreaterThan(0);
      for (const m of messages as unknown[]) expect(typeof m === 'string' && m.length > 0).toBe(true);
    }
  }

  /** Sends the body in test and in live mode: test validates exactly as live. */
  async function bothModes(path: string, body: unknown, fields: string[]): Promise<void> {
    const a = await post(test, path, body);
    const b = await post(live, path, body);
    expect422(a, fields);
    expect(b.body).toEqual(a.body);
  }

  it('POST /api/v1/customers', async () => {
    const before = (await get(live, '/api/v1/customers?per_page=1')).body.meta.total;
    const cases: [Json, string[]][] = [
      [{}, ['name']],
      [{ name: '' }, ['name']],
      [{ name: '   ' }, ['name']],
      [{ name: 42 }, ['name']],
      [{ name: 'x', email: 'not-an-email' }, ['email']],
      [{ name: 'x', email: 5 }, ['email']],
      [{ name: 'x', phone: 'call me maybe' }, ['phone']],
      [{ name: 'x', tax_number: 12 }, ['tax_number']],
      [{ name: 'x', notes: 'n'.repeat(2001) }, ['notes']],
      [{ name: 'x', address: 'Auckland' }, ['address']],
      [{ name: 'x', address: { city: 7, line1: ['a'] } }, ['address.city', 'address.line1']],
      [{ email: 'bad', notes: 'n'.repeat(2001) }, ['name', 'email', 'notes']],
    ];
    for (const [body, fields] of cases) await bothModes('/api/v1/customers', body, fields);
    await bothModes('/api/v1/customers', [], ['body']);
    expect((await get(live, '/api/v1/customers?per_page=1')).body.meta.total).toBe(before);
  });

  it('POST /api/v1/invoices', async () => {
    const before = (await get(live, '/api/v1/invoices?per_page=1')).body.meta.total;
    const other = await signIn(sb.baseUrl, await makeKey(sb, 'live', undefined, 2));
    const otherCustomer = (await get(other, '/api/v1/customers?per_page=1')).body.data[0].id;
    const otherProduct = (await get(other, '/api/v1/products?per_page=1')).body.data[0].id;
    const line = { description: 'x', quantity: 1, unit_price: '1.00' };
    const withLine = (changes: Json, index = 0): Json => {
      const items = [line, line];
      items[index] = { ...line, ...changes };
      return { customer_id: activeCustomer, items };
    };
    const cases: [Json, string[]][] = [
      [{}, ['customer_id', 'items']],
      [{ customer_id: 'abc', items: [line] }, ['customer_id']],
      [{ customer_id: 1.5, items: [line] }, ['customer_id']],
      [{ customer_id: 999999999, items: [line] }, ['customer_id']],
      [{ customer_id: otherCustomer, items: [line] }, ['customer_id']],
      [{ customer_id: archivedCustomer, items: [line] }, ['customer_id']],
      [{ customer_id: activeCustomer, items: [] }, ['items']],
      [{ customer_id: activeCustomer, items: 'x' }, ['items']],
      [{ customer_id: activeCustomer, items: Array.from({ length: 201 }, () => line) }, ['items']],
      [{ customer_id: activeCustomer, items: ['x'] }, ['items.0']],
      [{ customer_id: activeCustomer, items: [{}] }, ['items.0.quantity', 'items.0.description', 'items.0.unit_price']],
      [withLine({ quantity: 0 }), ['items.0.quantity']],
      [withLine({ quantity: '-1' }), ['items.0.quantity']],
      [withLine({ quantity: 'abc' }), ['items.0.quantity']],
      [withLine({ quantity: '1.1234567' }), ['items.0.quantity']],
      [withLine({ quantity: undefined }), ['items.0.quantity']],
      [withLine({ unit_price: '-1.00' }, 1), ['items.1.unit_price']],
      [withLine({ unit_price: 19.99 }, 1), ['items.1.unit_price']],
      [withLine({ unit_price: '1.23456' }, 1), ['items.1.unit_price']],
      [withLine({ description: undefined }, 1), ['items.1.description']],
      [withLine({ product_id: 999999999 }), ['items.0.product_id']],
      [withLine({ product_id: 'abc' }), ['items.0.product_id']],
      [withLine({ product_id: archivedProduct }), ['items.0.product_id']],
      [withLine({ product_id: otherProduct }), ['items.0.product_id']],
      [withLine({ tax_category_id: 999 }), ['items.0.tax_category_id']],
      [{ ...withLine({}), issue_date: '2026-02-30' }, ['issue_date']],
      [{ ...withLine({}), due_date: 'tomorrow' }, ['due_date']],
      [{ ...withLine({}), issue_date: '2026-12-10', due_date: '2026-12-09' }, ['due_date']],
      [{ ...withLine({}), notes: 42, terms: ['x'] }, ['notes', 'terms']],
      [
        { customer_id: 999999999, items: [{ quantity: 0 }, line, { ...line, unit_price: '-2' }] },
        ['customer_id', 'items.0.quantity', 'items.0.description', 'items.0.unit_price', 'items.2.unit_price'],
      ],
    ];
    for (const [body, fields] of cases) await bothModes('/api/v1/invoices', body, fields);
    expect((await get(live, '/api/v1/invoices?per_page=1')).body.meta.total).toBe(before);
  });
});
