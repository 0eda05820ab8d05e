// The mirror's store against records read raw from the sandbox, on each engine (SQLite, Postgres): what goes
// in comes out field for field, the queries filter and sum as the test's own arithmetic says; and the file
// rules hold (owner-only, another key's file refused, a corrupt file set aside, another schema version
// rebuilt, one lease holder).
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/answers/dates.js';
import { findInBooks, textMatch } from '../../src/answers/find/figures.js';
import { answerOwed, answerOwedFromSums } from '../../src/answers/owed/figures.js';
import {
  answerSales,
  answerSalesByProduct,
  figuresOfSums,
  lineSumsOf,
  productSalesAnswer,
  rankProducts,
  salesInvoices,
} from '../../src/answers/sales/figures.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import { mirrorIdentity, resolveMirrorLocation } from '../../src/store/location.js';
import type { Rec } from '../../src/store/record.js';
import type { MirrorStore } from '../../src/store/store.js';
import { MIRRORED_KINDS, type MirroredKind } from '../../src/store/types.js';
import { Exact } from '../support/exact.js';
import { ENGINES, engineStores } from '../support/postgres.js';
import { get, type Json, listAll, type SandboxHandle, type Session, signIn, start } from './sandbox-http.js';

let sb: SandboxHandle;
let live: Session;
const records = {} as Record<MirroredKind, Json[]>;
const identity = 'https://books.example|svck_test_one';
const warnings: string[] = [];
const warn = (m: string): void => void warnings.push(m);

beforeAll(async () => {
  sb = await start();
  live = await signIn(sb.baseUrl, sb.keys.live);
  for (const kind of MIRRORED_KINDS) records[kind] = await listAll(live, `/api/v1/${kind}`);
});
afterAll(async () => {
  await sb?.close();
});

// Each invoice's detail is read once for every engine's tests (the sandbox's rate limit is per minute).
const details = new Map<number, Promise<Json>>();
const detailOf = (id: number): Promise<Json> => {
  if (!details.has(id))
    details.set(
      id,
      get(live, `/api/v1/invoices/${id}`).then((r) => r.body.data),
    );
  return details.get(id) as Promise<Json>;
};

describe.each(ENGINES)('on %s, the store holds the records as the service sent them', (engine) => {
  const stores = engineStores(engine, 'books_store');
  async function filled(): Promise<MirrorStore> {
    const store = await openMirrorStore({ location: await stores.fresh(), identity, warn });
    expect(store.path === null).toBe(engine === 'sqlite');
    for (const kind of MIRRORED_KINDS) await store.write(kind, records[kind] as Rec[], []);
    return store;
  }
  // The tests that only read share one filled store; a test that changes its store fills its own (on Postgres
  // the database is made new for it, so the shared store is closed first).
  let shared: Promise<MirrorStore> | null = null;
  const readOnly = (): Promise<MirrorStore> => (shared ??= filled());
  async function own(): Promise<MirrorStore> {
    const open = shared;
    shared = null;
    await (await open)?.close();
    return filled();
  }
  afterAll(async () => {
    await (await shared)?.close();
  });

  it('keeps every record raw and typed, and filters invoices and payments in SQL', async () => {
    const store = await readOnly();
    for (const kind of MIRRORED_KINDS) {
      expect(records[kind].length).toBeGreaterThan(0);
      for (const r of records[kind].slice(0, 40)) expect(await store.read.raw(kind, r.id)).toEqual(r);
    }
    const invoices = await store.read.invoices();
    expect(invoices.map((i) => i.id)).toEqual(records.invoices.map((i: Json) => i.id).sort((a: number, b: number) => a - b));
    const sample = records.invoices[7];
    const row = invoices.find((i) => i.id === sample.id);
    expect(row).toMatchObject({
      number: sample.number,
      status: sample.status,
      customer_id: sample.customer.id,
      total: sample.total,
      balance: sample.balance,
      currency: sample.currency,
    });

    const receivable = records.invoices.filter((i: Json) => !['draft', 'void'].includes(i.status) && Exact.of(i.balance).gt(0));
    expect((await store.read.invoices({ receivable: true })).map((i) => i.id).sort()).toEqual(receivable.map((i: Json) => i.id).sort());
    const month = records.invoices.filter((i: Json) => i.issue_date >= '2025-01-01' && i.issue_date <= '2025-01-31' && i.status !== 'void');
    expect(month.length).toBeGreaterThan(0);
    const got = await store.read.invoices({ issuedFrom: '2025-01-01', issuedTo: '2025-01-31', excludeStatuses: ['void'] });
    expect(got.map((i) => i.id).sort()).toEqual(month.map((i: Json) => i.id).sort());

    const payments = await store.read.payments();
    expect(payments).toHaveLength(records.payments.length);
    const p = records.payments.find((x: Json) => x.allocations.length > 0);
    expect(payments.find((x) => x.id === p.id)?.allocations).toEqual(
      p.allocations.map((a: Json) => ({ invoice_id: a.invoice_id, invoice_number: a.invoice_number, amount: a.amount })),
    );
    const tracked = records.products.find((x: Json) => x.stock !== null);
    expect((await store.read.products()).find((x) => x.id === tracked.id)?.stock).toEqual({
      on_hand: tracked.stock.on_hand,
      reorder_level: tracked.stock.reorder_level,
      low: tracked.stock.low,
      branches: tracked.stock.branches.map((b: Json) => ({ branch_id: b.branch_id, branch: b.branch, on_hand: b.on_hand })),
    });
  });

  it('narrows a search in SQL without losing a record the full search finds', async () => {
    const store = await readOnly();
    const all = {
      customers: await store.read.customers(),
      invoices: await store.read.invoices(),
      quotes: await store.read.quotes(),
      products: await store.read.products(),
    };
    const c = records.customers[3];
    const named = records.products.find((x: Json) => x.sku && x.barcode);
    const terms = [
      c.name,
      c.name.toUpperCase(),
      `  ${c.code.toLowerCase()} `,
      c.email?.toUpperCase() ?? c.code,
      c.name.split(' ')[0].slice(0, 3),
      `${named.name.split(' ').slice(-1)[0]}s`,
      named.sku.toLowerCase(),
      named.barcode,
      records.invoices[5].number.toLowerCase(),
      records.quotes[2].number,
      'Māori',
      'ZZZ no such thing',
      "O'Brien & Co",
      '100% _wild_',
    ];
    for (const term of terms) {
      const match = textMatch(term);
      const narrowed = {
        customers: await store.read.customers({ match }),
        invoices: await store.read.invoices({ number: term }),
        quotes: await store.read.quotes({ number: term }),
        products: await store.read.products({ match }),
      };
      expect(findInBooks(narrowed, [term], 50), term).toEqual(findInBooks(all, [term], 50));
      // Letter case beyond ASCII is left to the full comparison: such a term narrows nothing.
      if (/^[\x20-\x7e]*$/.test(term))
        expect(narrowed.customers.length + narrowed.products.length, term).toBeLessThan(all.customers.length + all.products.length);
    }
    expect(findInBooks(all, [c.name], 5)[0]?.customers.map((x) => x.id)).toContain(c.id);
  });

  it('sums lines per product in SQL exactly as the rows add up, and declines what it cannot add', async () => {
    const store = await own();
    const picked = records.invoices.filter((i: Json) => i.status !== 'draft').slice(0, 40);
    for (const inv of picked) {
      const detail = await detailOf(inv.id);
      await store.setLines(inv.id, detail.updated_at, detail.items);
    }
    const filter = { excludeStatuses: ['draft', 'void'] };
    const invoices = await store.read.invoices(filter);
    const bySql = await store.read.lineSums(filter);
    expect(bySql).not.toBeNull();
    const q = { range: { from: '0000-01-01', to: '9999-12-31' }, groupBy: 'product' as const, limit: 1000 };
    const names = await store.read.productNames(records.products.map((p: Json) => p.id));
    const inSql = answerSales(invoices, q, bySql!, names);
    const inJs = answerSales(invoices, q, lineSumsOf(salesInvoices(invoices, q), await store.read.lines(filter)), names);
    expect(inSql.groups.length).toBeGreaterThan(3);
    expect(inSql).toEqual(inJs);
    const totals = await store.read.invoiceSums(filter);
    expect(figuresOfSums(totals!)).toEqual(answerSales(invoices, { ...q, groupBy: undefined }).totals);
    expect(answerSalesByProduct(figuresOfSums(totals!), bySql!, names, q.limit)).toEqual(inJs);
    // Asked for the first two of each currency, a store may hand back only those, ranked and named: the same answer.
    const jsLines = lineSumsOf(salesInvoices(invoices, q), await store.read.lines(filter));
    for (const rankBy of ['total', 'subtotal'] as const) {
      const top = await store.read.lineSums(filter, { limit: 2, rankBy });
      const shown = productSalesAnswer(figuresOfSums(totals!), top!, rankProducts(top!, 2, rankBy), top!.names ?? names);
      const inJsTop = answerSales(invoices, { ...q, limit: 2, rankBy }, jsLines, names);
      expect(inJsTop.groups_left_out).toBeGreaterThan(0);
      expect(shown, rankBy).toEqual(inJsTop);
    }
    // The test's own arithmetic for one product, from the raw lines.
    const top = inSql.groups[0]!;
    let subtotal = Exact.of(0);
    for (const inv of picked) {
      const detail = await detailOf(inv.id);
      if (detail.currency !== top.currency || ['draft', 'void'].includes(detail.status)) continue;
      for (const l of detail.items) if ((l.product_id ?? null) === top.key) subtotal = subtotal.plus(l.line_total);
    }
    expect(Exact.of(top.subtotal).equals(subtotal)).toBe(true);

    // An invoice's header changed after its lines were stored (voided, and another moved to a customer of
    // its own): its lines' sums follow it.
    const [voided, moved] = picked.slice(1, 3);
    await store.write(
      'invoices',
      [
        { ...voided, status: 'void' },
        { ...moved, customer: { ...moved.customer, id: 987654 } },
      ],
      [],
    );
    for (const f of [filter, { ...filter, customerId: 987654 }]) {
      const now = await store.read.invoices(f);
      const jsNow = answerSales(now, q, lineSumsOf(salesInvoices(now, q), await store.read.lines(f)), names);
      expect(answerSales(now, q, (await store.read.lineSums(f))!, names)).toEqual(jsNow);
    }
    expect((await store.read.lineSums({ ...filter, customerId: 987654 }))?.withLines).toBe(1);
    const stillIn = await store.read.lineSums(filter);
    expect(stillIn?.withLines).toBe(bySql!.withLines - 1);

    const odd = picked[0];
    const detail = await detailOf(odd.id);
    await store.setLines(odd.id, detail.updated_at, [{ ...detail.items[0], quantity: '1e3' }]);
    expect(await store.read.lineSums(filter)).toBeNull();
    await store.write('invoices', [{ ...odd, total: '1.5e2' }], []);
    expect(await store.read.invoiceSums(filter)).toBeNull();
    await store.close();
  });

  it('sums what is owed in SQL exactly as the rows add up, and declines balances of mixed places', async () => {
    const store = await own();
    const today = '2026-06-30';
    const c = records.invoices.find((i: Json) => !['draft', 'void'].includes(i.status) && Exact.of(i.balance).gt(0)).customer.id;
    const questions = [
      { today, top: 10, invoiceLimit: 20 },
      { today, top: 3, invoiceLimit: 5, overDays: 30 },
      { today, top: 10, invoiceLimit: 200, customerId: c },
      { today, top: 1, invoiceLimit: 1, overDays: 5000 },
    ];
    const rows = await store.read.invoices({ receivable: true });
    for (const q of questions) {
      const sums = await store.read.owing({
        customerId: q.customerId,
        dueBefore: q.overDays === undefined ? undefined : addDays(today, -q.overDays),
        top: q.top,
        limit: q.invoiceLimit,
      });
      expect(sums, JSON.stringify(q)).not.toBeNull();
      expect(answerOwedFromSums(sums!, q), JSON.stringify(q)).toEqual(answerOwed(rows, q));
    }
    const whole = answerOwedFromSums((await store.read.owing({ top: 10, limit: 20 }))!, questions[0]!);
    expect(whole.currencies.length).toBeGreaterThan(0);
    const nzd = records.invoices.filter(
      (i: Json) => i.currency === whole.currencies[0]!.currency && !['draft', 'void'].includes(i.status) && Exact.of(i.balance).gt(0),
    );
    expect(Exact.of(whole.currencies[0]!.balance).equals(nzd.reduce((sum: Exact, i: Json) => sum.plus(i.balance), Exact.of(0)))).toBe(true);

    const one = records.invoices.find((i: Json) => !['draft', 'void'].includes(i.status) && Exact.of(i.balance).gt(0));
    await store.write('invoices', [{ ...one, balance: Exact.of(one.balance).toFixed(3) }], []);
    expect(await store.read.owing({ top: 10, limit: 20 })).toBeNull();
    await store.close();
  });

  it('stores lines from get_invoice and counts an invoice covered only while its header is unchanged', async () => {
    const store = await own();
    const first = records.invoices[0];
    const detail = await detailOf(first.id);
    await store.setLines(first.id, detail.updated_at, detail.items);
    expect((await store.read.lines({ ids: [first.id] })).map((l) => l.line_total)).toEqual(detail.items.map((l: Json) => l.line_total));
    expect(await store.coverage()).toEqual({ withLines: 1, invoices: records.invoices.length });
    const wanted = await store.linesWanted(3);
    expect(wanted.map((w) => w.id)).toEqual(
      records.invoices
        .map((i: Json) => i.id)
        .sort((a: number, b: number) => b - a)
        .slice(0, 3),
    );
    await store.write('invoices', [{ ...first, updated_at: '2099-01-01T00:00:00+13:00' }], []);
    expect((await store.coverage()).withLines).toBe(0);
    await store.close();
  });

  it('reads one state of the books inside a snapshot while a write lands between its reads; the write shows after it', async () => {
    const store = await own();
    const newcomer = { ...records.customers[0], id: 987_654, name: 'Snapshot Newcomer Ltd', code: 'CUS-98765' } as Rec;
    let writing: Promise<void> = Promise.resolve();
    const [first, second] = await store.snapshot(async (read) => {
      const a = await read.customers();
      writing = store.write('customers', [newcomer], []);
      // On Postgres the write commits on another connection; on SQLite it waits for the snapshot to end.
      await Promise.race([writing, new Promise((resolve) => setTimeout(resolve, 100))]);
      const b = await read.customers();
      return [a.map((c) => c.id), b.map((c) => c.id)];
    });
    expect(second).toEqual(first);
    expect(first).not.toContain(newcomer.id);
    await writing;
    expect((await store.read.customers()).map((c) => c.id)).toContain(newcomer.id);
    await store.close();
  });

  it("keeps one set of an invoice's lines when two writers store them side by side (an answer and the background)", async () => {
    const store = await own();
    const invoice = records.invoices[1];
    const detail = await detailOf(invoice.id);
    await Promise.all(Array.from({ length: 6 }, () => store.setLines(invoice.id, detail.updated_at, detail.items)));
    expect((await store.read.lines({ ids: [invoice.id] })).map((l) => l.line_total)).toEqual(detail.items.map((l: Json) => l.line_total));
    await store.close();
  });
});

describe('the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirror-store-'));

  it('defaults to a file per service and key under the cache directory, owner-only', async () => {
    const env = { XDG_CACHE_HOME: dir };
    const a = resolveMirrorLocation({
      setting: null,
      sandbox: false,
      baseUrl: 'https://a.example',
      keyId: 'svck_live_x',
      env,
      platform: 'linux',
      home: '/h',
    });
    const b = resolveMirrorLocation({
      setting: null,
      sandbox: false,
      baseUrl: 'https://a.example',
      keyId: 'svck_test_x',
      env,
      platform: 'linux',
      home: '/h',
    });
    expect(a.kind === 'file' && a.path.startsWith(join(dir, 'invoicing-mcp'))).toBe(true);
    expect(a).not.toEqual(b);
    expect(resolveMirrorLocation({ setting: null, sandbox: true, baseUrl: 'x', keyId: 'y' })).toEqual({ kind: 'memory' });
    expect(resolveMirrorLocation({ setting: 'off', sandbox: false, baseUrl: 'x', keyId: 'y' })).toEqual({ kind: 'off' });
    const mac = resolveMirrorLocation({
      setting: null,
      sandbox: false,
      baseUrl: 'x',
      keyId: 'y',
      env: {},
      platform: 'darwin',
      home: '/Users/u',
    });
    expect(mac.kind === 'file' && mac.path.startsWith('/Users/u/Library/Caches/invoicing-mcp/')).toBe(true);
    const win = resolveMirrorLocation({
      setting: null,
      sandbox: false,
      baseUrl: 'x',
      keyId: 'y',
      env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' },
      platform: 'win32',
      home: 'C:\\Users\\u',
    });
    expect(win.kind === 'file' && win.path.startsWith('C:\\Users\\u\\AppData\\Local')).toBe(true);
    expect(resolveMirrorLocation({ setting: '/srv/books.db', sandbox: true, baseUrl: 'x', keyId: 'y' })).toEqual({
      kind: 'file',
      path: '/srv/books.db',
      explicit: true,
    });
    if (a.kind !== 'file') return;
    const store = await openMirrorStore({ location: a, identity: mirrorIdentity('https://a.example', 'svck_live_x'), warn });
    await store.write('customers', records.customers.slice(0, 3) as Rec[], []);
    await store.close();
    expect(statSync(a.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'invoicing-mcp')).mode & 0o777).toBe(0o700);
  });

  it('refuses the file of another key (a memory mirror instead, with a warning), keeps its own across opens', async () => {
    const path = join(dir, 'shared.db');
    const mine = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn });
    await mine.write('customers', records.customers.slice(0, 2) as Rec[], []);
    await mine.close();
    warnings.length = 0;
    const other = await openMirrorStore({
      location: { kind: 'file', path, explicit: true },
      identity: 'https://books.example|svck_live_two',
      warn,
    });
    expect(other.path).toBeNull();
    expect((await other.counts()).customers).toBe(0);
    expect(warnings.join()).toMatch(/another key or service/);
    await other.close();
    const again = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn });
    expect((await again.counts()).customers).toBe(2);
    await again.close();
  });

  it('sets a corrupt file aside and rebuilds, without a crash', async () => {
    const path = join(dir, 'corrupt.db');
    writeFileSync(path, 'not a database '.repeat(500));
    warnings.length = 0;
    const store = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn });
    expect(store.path).toBe(path);
    expect((await store.counts()).invoices).toBe(0);
    expect(warnings.join()).toMatch(/set aside as .*corrupt/);
    expect(readdirSync(dir).some((f) => f.startsWith('corrupt.db.corrupt-'))).toBe(true);
    await store.close();
  });

  it('rebuilds a file of another schema version rather than misreading it', async () => {
    const path = join(dir, 'old.db');
    const store = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn });
    await store.write('customers', records.customers.slice(0, 2) as Rec[], []);
    await store.close();
    const { default: Database } = await import('libsql');
    const raw = new Database(path);
    raw.exec("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    raw.close();
    const reopened = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn });
    expect((await reopened.counts()).customers).toBe(0);
    await reopened.close();
  });

  it('gives the sync lease to one holder until it lapses', async () => {
    const path = join(dir, 'lease.db');
    const a = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn });
    const b = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn });
    expect(await a.takeLease('sync', 'a', 1000, 10_000)).toBe(true);
    expect(await b.takeLease('sync', 'b', 1000, 10_500)).toBe(false);
    expect(await a.takeLease('sync', 'a', 1000, 10_600)).toBe(true);
    expect(await b.takeLease('sync', 'b', 1000, 12_000)).toBe(true);
    await b.releaseLease('sync', 'b');
    expect(await a.takeLease('sync', 'a', 1000, 12_001)).toBe(true);
    await a.close();
    await b.close();
  });
});
