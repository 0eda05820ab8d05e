// What a model drafting invoices reads: the base currency named where drafts are made (the tool's description
// and result, check_connection), a test key's create that opens by saying nothing was saved, and a search by
// name on a new mirror that asks the service's own filter instead of reading every list (its calls counted in
// the sandbox's request log). The truth is the raw API's: the currency it makes a draft in, its customers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, listAll, post } from '../contract/sandbox-http.js';
import { type Connected, connectClient } from '../e2e/support/clients.js';
import { DRAFT } from '../e2e/support/expect.js';
import { ALL_SCOPES, type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { answerOf, type RawBooks, readRawBooks } from './ground-truth.js';
import { startInProcessServer } from './in-process-server.js';
import { TODAY } from './questions.js';

let sb: TestSandbox;
let books: RawBooks;
/** The currency the service makes a draft in, as the raw API answers a create. */
let draftCurrency: string;

beforeAll(async () => {
  sb = await startTestSandbox({ today: TODAY, rateLimit: 1_000_000 });
  books = await readRawBooks(sb.baseUrl, sb.keys.live);
  const made = await post(books.session, '/api/v1/invoices', DRAFT, { 'idempotency-key': 'drafting-words-truth' });
  expect(made.status).toBe(201);
  draftCurrency = made.body.data.currency;
}, 60_000);
afterAll(async () => {
  await sb?.close();
});

interface Serving {
  mcp: Connected;
  ask(name: string, args?: Record<string, unknown>): Promise<Json>;
}

/** `work` on a server of its own, on a key of its own (the request log then holds its calls only), an empty mirror, no background rounds. */
async function onServer(key: KeyPair, work: (s: Serving) => Promise<void>): Promise<void> {
  const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_SECONDS: '0' };
  const mcp = await connectClient('v2', { linked: await startInProcessServer(env, { mirror: 'memory' }) });
  try {
    await work({ mcp, ask: (name, args = {}) => answerOf(mcp.client, name, args) });
  } finally {
    await mcp.close();
  }
}

/** The data calls (not sign-in) the key made to the service, in order. */
const callsOf = async (key: KeyPair): Promise<string[]> =>
  (await sb.requests(key.key_id)).filter((r) => !r.path.startsWith('/api/v1/auth')).map((r) => `${r.method} ${r.path}`);

describe('the base currency, named where drafts are made', () => {
  it('in create_draft_invoice: its description, and the result of a live create', async () => {
    await onServer(await sb.makeKey('live', ALL_SCOPES), async ({ mcp, ask }) => {
      const { tools } = await mcp.client.listTools();
      expect(tools.find((t) => t.name === 'create_draft_invoice')?.description).toContain("in the business's base currency");
      const draft = await ask('create_draft_invoice', { ...DRAFT, idempotency_key: 'drafting-words-live' });
      expect(draft.currency).toBe(draftCurrency);
      expect(draft.text).toMatch(
        new RegExp(`^Draft invoice ${draft.number} \\(id ${draft.id}\\) created in ${draftCurrency}, the business's base currency`),
      );
    });
  });

  it('in check_connection, learnt from the oldest page of invoices (one call), and how', async () => {
    const key = await sb.makeKey('live', ALL_SCOPES);
    await onServer(key, async ({ ask }) => {
      const a = await ask('check_connection');
      const oldest = (await listAll(books.session, '/api/v1/invoices')).slice(0, 100);
      const most = oldest.filter((i) => i.currency === draftCurrency).length;
      expect(most * 2).toBeGreaterThan(oldest.length);
      expect(a.business).toMatchObject({
        base_currency: draftCurrency,
        base_currency_from: `the currency of ${most} of its oldest ${oldest.length} invoices`,
      });
      expect(a.text).toContain(`Drafts are made in the business's base currency, no other: ${draftCurrency} (`);
      expect((await callsOf(key)).filter((c) => c.startsWith('GET /api/v1/invoices'))).toEqual(['GET /api/v1/invoices?per_page=100']);
    });
  });

  it('in check_connection: not known, and said so, for a key that cannot read invoices', async () => {
    await onServer(await sb.makeKey('live', ['customers.read']), async ({ ask }) => {
      const a = await ask('check_connection');
      expect(a.business).toMatchObject({ base_currency: null, base_currency_from: 'not known: this key cannot read invoices' });
    });
  });
});

describe("a test key's create", () => {
  it('opens by saying nothing was saved, before any number or id', async () => {
    await onServer(await sb.makeKey('test', ALL_SCOPES), async ({ ask }) => {
      const draft = await ask('create_draft_invoice', DRAFT);
      expect(draft.text).toMatch(/^Not saved: this is a test key/);
      expect(draft.text.indexOf(draft.number)).toBeGreaterThan(draft.text.indexOf('no record was made'));
      expect(draft.text).toContain(`in ${draftCurrency}, the business's base currency`);
      const customer = await ask('create_customer', { name: 'Words Test Ltd' });
      expect(customer.text).toMatch(/^Not saved: this is a test key/);
    });
  });
});

describe('find_records on a new mirror', () => {
  // An active customer no other shares a name with: the search by its name ranks it first (an exact name).
  const customer = (): Json =>
    books.customers.find((c) => c.status === 'active' && books.customers.filter((o) => o.name === c.name).length === 1)!;

  it('finds a customer by name in at most 2 service calls', async () => {
    const key = await sb.makeKey('live', ALL_SCOPES);
    await onServer(key, async ({ ask }) => {
      const wanted = customer();
      const a = await ask('find_records', { search: [wanted.name] });
      expect(a.results[0].customers[0].id).toBe(wanted.id);
      const calls = await callsOf(key);
      console.error(`cold find_records by name: ${calls.length} service calls: ${calls.join(', ')}`);
      expect(calls.length).toBeLessThanOrEqual(2);
      expect(calls.some((c) => c.startsWith('GET /api/v1/invoices') || c.startsWith('GET /api/v1/quotes'))).toBe(false);
    });
  });

  it('finds a customer and a product by name together, as a warm mirror does', async () => {
    const key = await sb.makeKey('live', ALL_SCOPES);
    await onServer(key, async ({ ask }) => {
      const wanted = customer();
      const product = books.products.find((p) => p.is_active)!;
      const cold = await ask('find_records', { search: [wanted.name, product.name] });
      const calls = await callsOf(key);
      console.error(`cold find_records, a customer and a product: ${calls.length} service calls`);
      expect(calls.length).toBeLessThanOrEqual(3);
      expect(cold.results[0].customers[0].id).toBe(wanted.id);
      expect(cold.results[1].products[0].id).toBe(product.id);
      await ask('report_customer', { customer_id: wanted.id });
      const warm = await ask('find_records', { search: [wanted.name, product.name] });
      expect(warm.results).toEqual(cold.results);
    });
  });
});
