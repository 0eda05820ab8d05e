// One server over stdio serving three businesses of the sandbox (--businesses): every tool answers from the
// business named, a call naming none, an unknown or an ambiguous one is refused listing the names, a draft
// names its business and exists only in its books, `all` answers per business against each business's raw
// API, and one record id that exists in every business never brings one business's record to another's call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiced, issuedIn, lastMonth, type RawBooks, readRawBooks, receivable, same, tally } from '../answers/ground-truth.js';
import { get, type Json, signIn } from '../contract/sandbox-http.js';
import { type KeyPair, startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { businessesFile } from './support/businesses-file.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { DRAFT } from './support/expect.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const NAMES = ['Harbourside', 'Tui Dental', 'Kauri Build'] as const;
const NAME_LIST = /"Harbourside", "Tui Dental", "Kauri Build"/;

let sandbox: TestSandbox;
let mcp: Connected;
let file: string;
const keys = new Map<string, KeyPair>();
const books = new Map<string, RawBooks>();

async function call(name: string, args: Record<string, unknown>) {
  return mcp.client.callTool({ name, arguments: args });
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  keys.set('Harbourside', sandbox.keys.live);
  for (const name of NAMES.slice(1)) {
    const made = await sandbox.admin('POST', '/businesses', { name });
    expect(made.status).toBe(201);
    keys.set(name, made.body.keys.live);
  }
  const entries = NAMES.map((name, i) => {
    const key = keys.get(name) as KeyPair;
    // One secret stays in the environment, as a person may keep them.
    return i === 1
      ? { name, base_url: sandbox.baseUrl, key_id: key.key_id, secret_env: 'TUI_SECRET' }
      : { name, base_url: sandbox.baseUrl, key_id: key.key_id, secret: key.secret };
  });
  file = businessesFile(entries);
  const here = await stdioHere(['--businesses', file], { TUI_SECRET: keys.get('Tui Dental')?.secret ?? '' });
  mcp = await connectClient('v2', { linked: here });
  for (const name of NAMES) books.set(name, await readRawBooks(sandbox.baseUrl, keys.get(name) as KeyPair));
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await sandbox?.close();
});

describe('three businesses over stdio', () => {
  it('offers `business` on every tool, required but on check_connection (which without it lists them all)', async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toContain('business');
      if (tool.name !== 'check_connection') expect(tool.inputSchema.required, tool.name).toContain('business');
    }
  });

  it('refuses a call naming no business, or an unknown one, listing the names', async () => {
    for (const args of [{}, { business: 'Nobody Ltd' }, { business: '' }]) {
      const refused = await call('list_customers', args);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(NAME_LIST);
      expect(textOf(refused)).toContain('Nothing was done');
    }
    // Nothing is carried over: a call after one that named a business still needs its own.
    await call('list_customers', { business: 'Harbourside' });
    expect((await call('get_customer', { id: 1 })).isError).toBe(true);
    // "all" is only for the answers across businesses.
    expect(textOf(await call('get_invoice', { business: 'all', id: 1 }))).toMatch(NAME_LIST);
  });

  it("answers each tool from the business named (by name in any case, or by its id); another business's id is not found", async () => {
    for (const name of NAMES) {
      const raw = books.get(name) as RawBooks;
      const [customer1] = raw.customers;
      const [invoice1] = raw.invoices;
      for (const business of [name.toUpperCase(), String(raw.session.signIn.business.id)]) {
        const customer = await call('get_customer', { business, id: customer1.id });
        expect(customer.isError, textOf(customer)).toBeFalsy();
        expect(textOf(customer)).toContain(`Business: ${name}.`);
        // What a view shows the business by.
        expect(customer._meta?.['invoicing-mcp/business']).toBe(name);
        expect(customer.structuredContent.name).toBe(customer1.name);
        const invoice = await call('get_invoice', { business, id: invoice1.id });
        expect(invoice.structuredContent).toMatchObject({ number: invoice1.number, total: invoice1.total });
      }
      const connection = await call('check_connection', { business: name });
      expect(connection.structuredContent.business).toMatchObject(raw.session.signIn.business);
    }
    // Each business's invoice was just read (and cached) for its own business: asked for in another, it is not found.
    for (const [i, name] of NAMES.entries()) {
      const elsewhere = NAMES[(i + 1) % NAMES.length] as string;
      const theirs = (books.get(elsewhere) as RawBooks).invoices[0];
      const crossed = await call('get_invoice', { business: name, id: theirs.id });
      expect(crossed.isError, `${name} reading ${elsewhere}'s invoice ${theirs.id}`).toBe(true);
      expect(textOf(crossed)).toContain(`Business: ${name}.`);
    }
  });

  it('makes a draft that names its business and exists only in its books', async () => {
    const customer = (books.get('Tui Dental') as RawBooks).customers[0];
    const draft = { ...DRAFT, customer_id: customer.id, business: 'tui dental', idempotency_key: 'businesses-e2e-1' };
    const created = await call('create_draft_invoice', draft);
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(textOf(created).split('\n')[0]).toBe('Business: Tui Dental.');
    const { id, number } = created.structuredContent;
    const own = await get(await signIn(sandbox.baseUrl, keys.get('Tui Dental') as KeyPair), `/api/v1/invoices/${id}`);
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ number, status: 'draft' });
    for (const other of ['Harbourside', 'Kauri Build']) {
      const there = await get(await signIn(sandbox.baseUrl, keys.get(other) as KeyPair), `/api/v1/invoices/${id}`);
      expect(there.status).toBe(404);
      const asked = await call('get_invoice', { business: other, id });
      expect(asked.isError).toBe(true);
    }
  });

  it('answers report_owed for "all": per business, each equal to its own raw books, never added', async () => {
    const answer = await call('report_owed', { business: 'all' });
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const { businesses, answered, asked } = answer.structuredContent;
    expect([answered, asked]).toEqual([3, 3]);
    expect(textOf(answer)).toContain('3 of 3 businesses answered');
    expect(businesses.map((b: Json) => b.business)).toEqual([...NAMES]);
    for (const section of businesses) {
      expect(section.status).toBe('answered');
      const raw = books.get(section.business) as RawBooks;
      const truth = tally(
        raw.invoices.filter(receivable),
        (i) => i.currency,
        (i) => i.balance,
      );
      const got = new Map(section.answer.currencies.map((c: Json) => [c.currency, c]));
      expect([...got.keys()].sort()).toEqual([...truth.keys()].sort());
      for (const [currency, t] of truth) {
        const figure = got.get(currency) as Json;
        expect(figure.count, `${section.business} ${currency}`).toBe(t.count);
        expect(same(figure.balance, t.sum), `${section.business} ${currency} ${figure.balance} vs ${t.sum}`).toBe(true);
      }
    }
  });

  it('answers report_sales for "all" last month: per business, each equal to its own raw books', async () => {
    const answer = await call('report_sales', { business: 'all', range: 'last_month' });
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const month = lastMonth(sandbox.today);
    for (const section of answer.structuredContent.businesses) {
      const raw = books.get(section.business) as RawBooks;
      expect([section.answer.from, section.answer.to]).toEqual([month.from, month.to]);
      const rows = raw.invoices.filter((i: Json) => invoiced(i) && issuedIn(i, month));
      const truth = tally(
        rows,
        (i) => i.currency,
        (i) => i.total,
      );
      expect(section.answer.totals.map((t: Json) => t.currency).sort()).toEqual([...truth.keys()].sort());
      for (const t of section.answer.totals) {
        expect(t.count).toBe(truth.get(t.currency)?.count);
        expect(same(t.total, (truth.get(t.currency) as { sum: never }).sum), `${section.business} ${t.currency}`).toBe(true);
      }
    }
  });

  it('lists every business with check_connection called without one', async () => {
    const listed = await call('check_connection', {});
    expect(listed.isError, textOf(listed)).toBeFalsy();
    expect(listed.structuredContent.businesses.map((b: Json) => [b.business, b.status, b.answer.mode])).toEqual(
      NAMES.map((name) => [name, 'answered', 'live']),
    );
    for (const name of NAMES) expect(textOf(listed)).toContain(`Business: ${name}.`);
  });

  it("reads each business's records at its own URIs, and not another's", async () => {
    for (const [i, name] of NAMES.entries()) {
      const own = (books.get(name) as RawBooks).invoices[0];
      const read = await mcp.client.readResource({ uri: `invoicing://${encodeURIComponent(name)}/invoices/${own.id}` });
      expect(JSON.parse(read.contents[0]?.text as string).number).toBe(own.number);
      const theirs = (books.get(NAMES[(i + 1) % NAMES.length] as string) as RawBooks).invoices[0];
      await expect(mcp.client.readResource({ uri: `invoicing://${encodeURIComponent(name)}/invoices/${theirs.id}` })).rejects.toThrow(
        /does not exist/,
      );
    }
  });

  it('names the business in a prompt, and refuses an unknown one', async () => {
    const prompt = await mcp.client.getPrompt({ name: 'summarise_customer', arguments: { business: 'kauri build', customer: 'Acme' } });
    expect(prompt.messages[0]?.content.type === 'text' && prompt.messages[0].content.text).toContain('business: "Kauri Build"');
    await expect(mcp.client.getPrompt({ name: 'summarise_customer', arguments: { business: 'Nobody', customer: 'Acme' } })).rejects.toThrow(
      NAME_LIST,
    );
  });
});

describe('three businesses over HTTP, with --confirm-writes', () => {
  let server: HttpServer;
  let client: Connected;
  beforeAll(async () => {
    server = await spawnHttpServer(['--businesses', file, '--confirm-writes'], { TUI_SECRET: keys.get('Tui Dental')?.secret ?? '' });
    client = await connectClient('v2', { http: server.url }, { elicit: () => ({ action: 'accept', content: { confirm: true } }) });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('asks to confirm a create naming its business, and the result names it too', async () => {
    const created = await client.client.callTool({
      name: 'create_customer',
      arguments: { business: 'KAURI BUILD', name: 'Confirmed Kauri Ltd' },
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    expect(client.elicitations.at(-1)?.message.split('\n')[0]).toBe('Business: Kauri Build.');
    expect(textOf(created).split('\n')[0]).toBe('Business: Kauri Build.');
    const found = await get(
      await signIn(sandbox.baseUrl, keys.get('Kauri Build') as KeyPair),
      `/api/v1/customers/${created.structuredContent.id}`,
    );
    expect(found.body.data.name).toBe('Confirmed Kauri Ltd');
    const elsewhere = await get(
      await signIn(sandbox.baseUrl, keys.get('Harbourside') as KeyPair),
      `/api/v1/customers/${created.structuredContent.id}`,
    );
    expect(elsewhere.status).toBe(404);
  });

  it('refuses a call naming no business over HTTP too', async () => {
    const refused = await client.client.callTool({ name: 'report_owed', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(NAME_LIST);
  });
});
