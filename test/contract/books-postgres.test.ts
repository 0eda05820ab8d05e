// The Postgres engine's own rules, on the run's embedded Postgres (a database of this file's): a database of
// another key is refused, ones of versions 1 and 3 migrated in place and one of another schema version rebuilt; the
// password shows nowhere; the sync lease is one connection's advisory lock, let go of the moment that
// connection ends; and every store on the database hears of events as they are committed (NOTIFY).
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { openMirrorStore } from '../../src/books/open-store.js';
import { redactedUrl } from '../../src/store/location.js';
import { SharedPostgres } from '../../src/store/postgres/shared.js';
import type { Rec } from '../../src/store/record.js';
import type { MirrorStore } from '../../src/store/store.js';
import { forgetMirror, postgresDatabase } from '../support/postgres.js';
import { pollEvent } from './poll-event.js';
import { sampleCustomer, sampleInvoice, sampleLine } from './sample-records.js';
import { eventually } from './sandbox-http.js';

const identity = 'https://books.example|svck_live_pg';
let url: string;
let password: string;
const warnings: string[] = [];
const warn = (m: string): void => void warnings.push(m);
const open = (at = url, as = identity): Promise<MirrorStore> =>
  openMirrorStore({ location: { kind: 'postgres', url: at }, identity: as, warn });

const customer = (id: number, name?: string): Rec => sampleCustomer(id, name);
const event = pollEvent;

beforeAll(async () => {
  url = await postgresDatabase('books_pg');
  password = new URL(url).password;
  expect(password.length).toBeGreaterThan(8);
});

describe('the database', () => {
  it('keeps its own books across opens, refuses another key (memory instead, with a warning), rebuilds another schema version', async () => {
    await forgetMirror(url);
    const mine = await open();
    expect(mine.path).toBe(redactedUrl(url));
    await mine.write('customers', [customer(1), customer(2)], []);
    await mine.close();
    warnings.length = 0;
    const other = await open(url, 'https://books.example|svck_live_other');
    expect(other.path).toBeNull();
    expect((await other.counts()).customers).toBe(0);
    expect(warnings.join()).toMatch(/holds the books of another key or service: keeping the mirror in memory/);
    await other.close();
    const again = await open();
    expect((await again.counts()).customers).toBe(2);
    await again.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("UPDATE invoicing_mcp.meta SET value = '0' WHERE key = 'schema_version'");
    await client.end();
    const rebuilt = await open();
    expect((await rebuilt.counts()).customers).toBe(0);
    await rebuilt.close();
  });

  it('migrates a mirror of version 1 in place: its records and lines kept, its products summed from those lines', async () => {
    await forgetMirror(url);
    const mine = await open();
    const stamp = '2026-03-01T00:00:00+13:00';
    const invoice = (id: number, customerId: number): Rec => sampleInvoice(id, customerId, stamp);
    const line = sampleLine;
    await mine.write('invoices', [invoice(1, 7), invoice(2, 8)], []);
    await mine.setLines(1, stamp, [line(5, '10.00'), line(6, '20.00')]);
    await mine.setLines(2, stamp, [line(5, '12.25'), line(5, '0.75'), line(null, '17.00')]);
    const before = await mine.read.lineSums({});
    await mine.close();
    // What version 1 held: no products' sums.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('DROP TABLE invoicing_mcp.invoice_products');
    await client.query("UPDATE invoicing_mcp.meta SET value = '1' WHERE key = 'schema_version'");
    await client.end();
    const migrated = await open();
    expect((await migrated.counts()).lines).toBe(5);
    expect(await migrated.read.lineSums({})).toEqual(before);
    const five = before?.products.find((p) => p.product_id === 5);
    expect(five).toMatchObject({ invoices: 2, line_total: ['23.00'], tax_amount: ['4.50'], description: 'Item 5' });
    expect((await migrated.read.lineSums({ customerId: 8 }))?.withLines).toBe(1);
    await migrated.close();
  });

  it("migrates a mirror of version 3 in place: each record's stamp as an instant, so an older write is refused", async () => {
    await forgetMirror(url);
    const mine = await open();
    const nzdt = '2027-04-04T02:59:00+13:00';
    await mine.write('invoices', [sampleInvoice(1, 7, nzdt), sampleInvoice(2, 7, 'not a time')], []);
    await mine.write('customers', [customer(3)], []);
    await mine.close();
    // What version 3 held: stamps as the service wrote them, no instants.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const table of ['customers', 'invoices', 'quotes', 'payments', 'products'])
      await client.query(`ALTER TABLE invoicing_mcp.${table} DROP COLUMN stamp_ms`);
    await client.query("UPDATE invoicing_mcp.meta SET value = '3' WHERE key = 'schema_version'");
    const migrated = await open();
    const rows = await client.query('SELECT id, stamp_ms::text AS ms FROM invoicing_mcp.invoices ORDER BY id');
    await client.end();
    expect(rows.rows).toEqual([
      { id: '1', ms: String(Date.parse(nzdt)) },
      { id: '2', ms: null },
    ]);
    expect((await migrated.counts()).customers).toBe(1);
    // An hour later by the clock, though its text sorts first; then the older one again, refused.
    await migrated.write('invoices', [{ ...sampleInvoice(1, 7, '2027-04-04T02:10:00+12:00'), status: 'paid' }], []);
    await migrated.write('invoices', [sampleInvoice(1, 7, nzdt)], []);
    expect((await migrated.stored('invoices', [1])).get(1)).toMatchObject({ status: 'paid' });
    await migrated.close();
  });

  it('shows no password: not where it says the store lives, nor in the warning of a database it cannot use', async () => {
    const wrong = new URL(url);
    wrong.password = 'not-the-password-at-all';
    const missing = new URL(url);
    missing.pathname = '/no_such_database';
    const closed = new URL(url);
    closed.port = '9';
    for (const at of [wrong, missing, closed]) {
      warnings.length = 0;
      const store = await open(at.toString());
      expect(store.path).toBeNull();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('keeping the mirror in memory');
      expect(warnings[0]).not.toContain(at.password);
      expect(warnings[0]).not.toContain(password);
      await store.close();
    }
    expect(redactedUrl(url)).toBe(url.replace(`:${password}@`, ':***@'));
    expect(redactedUrl('postgres://u@h/db?password=s3cret&sslmode=require')).toBe('postgres://u@h/db?password=***&sslmode=require');
    expect(redactedUrl('postgres://u:p@[bad')).toBe('postgres://***');
  });
});

describe('the sync lease', () => {
  it('is held by one connection at a time, and let go of the moment that connection ends', async () => {
    await forgetMirror(url);
    const [a, b] = [await open(), await open()];
    try {
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 0)).toBe(true);
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 1)).toBe(true);
      expect(await b.takeLease('sync', 'host/2/b', 30_000, 2)).toBe(false);
      expect(await b.leaseHolder('sync')).toBe('host/1/a');
      // The holder's connection ends, as a killed process's does: no time to live to wait out.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      // Only this file's database: the other files' Postgres tests hold leases of their own.
      const ended = await admin.query(
        `SELECT pg_terminate_backend(pid) AS gone FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      await admin.end();
      expect(ended.rows).toEqual([{ gone: true }]);
      await eventually(async () => ((await b.leaseHolder('sync')) === null ? true : undefined), 3000);
      expect(await b.takeLease('sync', 'host/2/b', 30_000, 3)).toBe(true);
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 4)).toBe(false);
      await b.releaseLease('sync', 'host/2/b');
      expect(await b.leaseHolder('sync')).toBeNull();
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 5)).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('events', () => {
  // Each once and in order while two stores write side by side: books-store-engines.test.ts, on both engines.
  it('reach every store on the database as they commit: told by NOTIFY, not found by looking', async () => {
    await forgetMirror(url);
    const [writer, reader] = [await open(), await open()];
    try {
      let told = 0;
      const stop = await reader.watchEvents?.(() => void told++);
      expect(stop).toBeTypeOf('function');
      await writer.write('invoices', [], [event(0)]);
      await eventually(() => (told > 0 ? true : undefined), 2000);
      expect((await reader.eventsAfter(0)).map((e) => e.event.id)).toEqual(['poll_0']);
      stop?.();
      await writer.write('invoices', [], [event(1)]);
      const heard = told;
      await writer.write('invoices', [], [event(2)]);
      expect((await reader.eventsAfter(0)).map((e) => e.event.id)).toEqual(['poll_0', 'poll_1', 'poll_2']);
      expect(told).toBe(heard);
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  });
});

describe('a schema of its own (a hosted tenant)', () => {
  it('keeps each schema rows, lease and events apart on one database, and the default mirror untouched', async () => {
    await forgetMirror(url);
    const inSchema = (schema: string, as: string): Promise<MirrorStore> =>
      openMirrorStore({ location: { kind: 'postgres', url }, identity: as, warn, schema });
    const [plain, a, b] = [
      await open(),
      await inSchema('invoicing_mcp_k_aaaa', 'https://books.example|svck_live_a'),
      await inSchema('invoicing_mcp_k_bbbb', 'https://books.example|svck_live_b'),
    ];
    try {
      // Two keys' books on one database: neither store is refused (no fallback to memory).
      expect([a.path, b.path]).toEqual([redactedUrl(url), redactedUrl(url)]);
      await a.write('customers', [customer(1, 'Of A')], [event(1)]);
      await b.write('customers', [customer(1, 'Of B'), customer(2, 'Also of B')], []);
      expect((await a.stored('customers', [1, 2])).get(1)?.name).toBe('Of A');
      expect([...(await a.stored('customers', [1, 2])).keys()]).toEqual([1]);
      expect((await b.stored('customers', [1])).get(1)?.name).toBe('Of B');
      expect([(await plain.counts()).customers, (await a.counts()).customers, (await b.counts()).customers]).toEqual([0, 1, 2]);
      expect((await a.eventsAfter(0)).map((e) => e.event.id)).toEqual(['poll_1']);
      expect(await b.eventsAfter(0)).toEqual([]);
      // Each schema has its own sync lease: holding one's takes nothing of the other's.
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 0)).toBe(true);
      expect(await b.takeLease('sync', 'host/1/b', 30_000, 0)).toBe(true);
      expect(await plain.leaseHolder('sync')).toBeNull();
      expect([await a.leaseHolder('sync'), await b.leaseHolder('sync')]).toEqual(['host/1/a', 'host/1/b']);
      await a.releaseLease('sync', 'host/1/a');
      await b.releaseLease('sync', 'host/1/b');
    } finally {
      await Promise.all([plain.close(), a.close(), b.close()]);
    }
  });

  it('shares one pool and one session among many schemas: each its own rows, events and lease', async () => {
    const shared = new SharedPostgres(url);
    const stores = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        openMirrorStore({
          location: { kind: 'postgres', url },
          identity: `https://books.example|svck_live_s${n}`,
          warn,
          schema: `invoicing_mcp_s_${n}`,
          shared,
        }),
      ),
    );
    try {
      const told = stores.map(() => 0);
      const stops = await Promise.all(stores.map((store, n) => store.watchEvents?.(() => void told[n]!++)));
      await Promise.all(stores.map((store, n) => store.write('customers', [customer(n + 1, `Of ${n}`)], n % 2 === 0 ? [event(n)] : [])));
      for (const [n, store] of stores.entries()) {
        expect([...(await store.stored('customers', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])).values()].map((c) => c.name)).toEqual([
          `Of ${n}`,
        ]);
        expect((await store.eventsAfter(0)).map((e) => e.event.id)).toEqual(n % 2 === 0 ? [`poll_${n}`] : []);
        expect(await store.takeLease('sync', `host/1/${n}`, 30_000, 0)).toBe(true);
      }
      // Told on each schema's own channel: the stores that wrote events, and only they.
      await eventually(() => (told.every((t, n) => (n % 2 === 0 ? t > 0 : true)) ? true : undefined), 2000);
      expect(told.map((t, n) => (n % 2 === 0 ? t > 0 : t))).toEqual(told.map((_, n) => (n % 2 === 0 ? true : 0)));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const { rows } = await admin.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      await admin.end();
      // Twelve mirrors on at most the pool's eight connections and the one session.
      expect(rows[0].n).toBeLessThanOrEqual(9);
      for (const [n, store] of stores.entries()) await store.releaseLease('sync', `host/1/${n}`);
      for (const stop of stops) stop?.();
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await shared.close();
    }
  });

  it('refuses a schema name that is not plain letters, digits and underscores', async () => {
    warnings.length = 0;
    const store = await openMirrorStore({ location: { kind: 'postgres', url }, identity, warn, schema: 'x; DROP TABLE meta' });
    // Not used as SQL: the mirror stays in memory for the run, and the warning says why.
    expect(store.path).toBeNull();
    expect(warnings.join()).toMatch(/not a mirror schema name/);
    await store.close();
  });
});
