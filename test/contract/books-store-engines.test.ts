// One suite of the mirror's store, run unchanged on each engine (SQLite, Postgres): what the sync, the lease,
// the outbox and the processes sharing a store rely on. Two stores on one place (a file, a database) stand in
// for two processes. What only one engine does (a lease that lapses on SQLite, one let go of with its
// connection on Postgres, a damaged file, a migration) is tested in its own file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMirrorStore } from '../../src/books/open-store.js';
import type { BooksEvent } from '../../src/events/event.js';
import type { Rec } from '../../src/store/record.js';
import type { MirrorStore } from '../../src/store/store.js';
import { ENGINES, engineStores } from '../support/postgres.js';
import { pollEvent } from './poll-event.js';
import { sampleCustomer, sampleInvoice, sampleLine } from './sample-records.js';

const identity = 'https://books.example|svck_live_engines';
const warn = (m: string): void => {
  throw new Error(`unexpected warning: ${m}`);
};
const stamp = (day: number): string => `2026-03-${String(day).padStart(2, '0')}T00:00:00+13:00`;
const customer = (id: number, name?: string): Rec => sampleCustomer(id, name, stamp(1));
const invoice = (id: number, day = 1): Rec => sampleInvoice(id, 7, stamp(day));
const payment = (id: number, allocations: [number, string][]): Rec => ({
  id,
  customer: { id: 7, name: 'Customer 7' },
  amount: '10.00',
  currency: 'NZD',
  payment_date: '2026-03-02',
  method: 'bank',
  reference: `P${id}`,
  allocations: allocations.map(([invoiceId, amount]) => ({ invoice_id: invoiceId, invoice_number: `INV-${invoiceId}`, amount })),
  updated_at: stamp(2),
});
const line = (n: number) => sampleLine(n, '10.00');

describe.each(ENGINES)('on %s, the store', (engine) => {
  const stores = engineStores(engine, 'books_engines');
  const dir = mkdtempSync(join(tmpdir(), 'books-engines-'));
  let made = 0;
  /** Two stores on one new place, as two processes open it. */
  async function twoStores(): Promise<[MirrorStore, MirrorStore]> {
    const location = await stores.shared(join(dir, `books-${++made}.db`));
    const a = await openMirrorStore({ location, identity, warn });
    const b = await openMirrorStore({ location, identity, warn });
    return [a, b];
  }
  async function closing(work: (a: MirrorStore, b: MirrorStore) => Promise<void>): Promise<void> {
    const [a, b] = await twoStores();
    try {
      await work(a, b);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }

  it('writes records, their allocations and the mark of a completed read at once; a record sent twice keeps its last', async () => {
    await closing(async (a, b) => {
      expect(await b.marks()).toEqual(new Map());
      const mark = { watermark: stamp(2), syncedAt: stamp(3), syncedMs: 1234 };
      await a.write('customers', [customer(1), customer(2), customer(1, 'Renamed')], [], mark);
      expect([...(await b.stored('customers', [1, 2, 3])).values()].map((c) => c.name)).toEqual(['Renamed', 'Customer 2']);
      expect(await b.marks()).toEqual(new Map([['customers', mark]]));
      const later = { watermark: null, syncedAt: stamp(4), syncedMs: 5678 };
      await b.write('customers', [], [], later);
      expect((await a.marks()).get('customers')).toEqual(later);

      await a.write('invoices', [invoice(1), invoice(2)], []);
      await a.write(
        'payments',
        [
          payment(5, [
            [1, '4.00'],
            [2, '6.00'],
          ]),
        ],
        [],
      );
      await a.write('payments', [payment(5, [[2, '10.00']])], []);
      expect((await b.read.payments()).map((p) => p.allocations)).toEqual([[{ invoice_id: 2, invoice_number: 'INV-2', amount: '10.00' }]]);
      expect(await b.counts()).toEqual({ customers: 2, invoices: 2, quotes: 0, payments: 1, products: 0, lines: 0 });
      // More records than one statement takes arguments for (a kind's first read written at once).
      const many = Array.from({ length: 10_000 }, (_, i) => customer(100 + i));
      await a.write('customers', many, []);
      expect((await b.counts()).customers).toBe(10_002);
      expect((await b.stored('customers', [10_099])).get(10_099)?.name).toBe('Customer 10099');
      // Nothing to write writes nothing (and fails nothing).
      await a.write('quotes', [], []);
      expect(await b.stored('customers', [])).toEqual(new Map());
    });
  });

  it("keeps an invoice's lines for its stamp, wants them again when the header changes, and replaces them whole", async () => {
    await closing(async (a, b) => {
      await a.write('invoices', [invoice(1), invoice(2), invoice(3)], []);
      expect(await b.linesWanted(2)).toEqual([
        { id: 3, stamp: stamp(1) },
        { id: 2, stamp: stamp(1) },
      ]);
      await a.setLines(2, stamp(1), [line(1), line(2), line(3)]);
      await b.setLines(2, stamp(1), [line(4)]);
      expect((await a.read.lines({ ids: [2] })).map((l) => l.product_id)).toEqual([4]);
      expect(await a.coverage()).toEqual({ withLines: 1, invoices: 3 });
      expect([await b.linesStored(2), await b.linesStored(3), await b.linesStored(99)]).toEqual([true, false, false]);
      expect((await a.linesWanted(5)).map((w) => w.id)).toEqual([3, 1]);
      await b.write('invoices', [invoice(2, 9)], []);
      expect(await a.coverage()).toEqual({ withLines: 0, invoices: 3 });
      expect(await a.linesStored(2)).toBe(false);
      expect(await a.linesWanted(1)).toEqual([{ id: 3, stamp: stamp(1) }]);
      expect((await a.linesWanted(5)).find((w) => w.id === 2)).toEqual({ id: 2, stamp: stamp(9) });
      await a.setLines(2, stamp(9), []);
      expect(await b.read.lines({ ids: [2] })).toEqual([]);
      expect((await b.coverage()).withLines).toBe(1);
      expect((await b.counts()).lines).toBe(0);
    });
  });

  it('never takes a record back to an older stamp, whichever process writes last; the older write keeps no event', async () => {
    await closing(async (a, b) => {
      const sent = (n: number, record: Rec): BooksEvent => ({ ...pollEvent(n), record: { kind: 'invoices', id: record.id }, data: record });
      const seqs = async (): Promise<string[]> => (await b.eventsAfter(0)).map((e) => e.event.id);
      // Each process read the invoice before it wrote: the later stamp is written first, the older after it.
      await a.write('invoices', [invoice(1, 9)], [sent(1, invoice(1, 9))]);
      await b.write('invoices', [invoice(1, 5)], [sent(2, invoice(1, 5))]);
      expect((await a.stored('invoices', [1])).get(1)?.updated_at).toBe(stamp(9));
      expect(await seqs()).toEqual(['poll_1']);
      // The same stamp again is written (a webhook of what a sync just read), and so is a later one.
      await b.write('invoices', [{ ...invoice(1, 9), status: 'paid' }], [sent(3, invoice(1, 9))]);
      expect((await a.stored('invoices', [1])).get(1)?.status).toBe('paid');
      await b.write('invoices', [invoice(1, 12)], [sent(4, invoice(1, 12))]);
      expect((await a.stored('invoices', [1])).get(1)?.updated_at).toBe(stamp(12));
      expect(await seqs()).toEqual(['poll_1', 'poll_3', 'poll_4']);
      // Stamps carry the business's offset: when daylight saving ends (+13:00 to +12:00) the later change's text
      // sorts first. The instant decides, both ways.
      const atNzdt = { ...invoice(2), updated_at: '2027-04-04T02:59:00+13:00' };
      const atNzst = { ...invoice(2), updated_at: '2027-04-04T02:10:00+12:00', status: 'paid' };
      await a.write('invoices', [atNzdt], []);
      await b.write('invoices', [atNzst], []);
      await a.write('invoices', [atNzdt], []);
      expect((await b.stored('invoices', [2])).get(2)).toMatchObject({ updated_at: atNzst.updated_at, status: 'paid' });
      // A batch of a page writes each record by its own stamp: the newer of the page, not the older.
      await a.write('invoices', [invoice(1, 10), invoice(3, 4)], [sent(5, invoice(1, 10)), sent(6, invoice(3, 4))]);
      const page = await b.stored('invoices', [1, 3]);
      expect([page.get(1)?.updated_at, page.get(3)?.updated_at]).toEqual([stamp(12), stamp(4)]);
      expect(await seqs()).toEqual(['poll_1', 'poll_3', 'poll_4', 'poll_6']);
    });
  });

  it('numbers events in the order they commit: a reader of each store hears every one once, in order, while both write', async () => {
    await closing(async (a, b) => {
      expect(await b.lastEventSeq()).toBe(0);
      const seen: string[] = [];
      let last = 0;
      const drain = async (): Promise<void> => {
        for (const { seq, event } of await b.eventsAfter(last)) {
          expect(seq).toBeGreaterThan(last);
          last = seq;
          seen.push(event.id);
        }
      };
      const writes = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).write('customers', [customer(i)], [pollEvent(i)]));
      let done = false;
      const writing = Promise.all(writes).finally(() => {
        done = true;
      });
      while (!done) await drain();
      await writing;
      await drain();
      expect([...seen].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `poll_${i}`).sort());
      expect(await a.lastEventSeq()).toBe(last);
      expect(await a.eventsAfter(last)).toEqual([]);
      // Events older than the cut are pruned, the newer kept.
      await a.pruneEvents(Date.now() + 60_000);
      expect(await b.eventsAfter(0)).toEqual([]);
      await a.write('customers', [], [pollEvent(99)]);
      await b.pruneEvents(Date.now() - 60_000);
      expect((await a.eventsAfter(last)).map((e) => e.event.id)).toEqual(['poll_99']);
    });
  });

  it('gives the named lease to one holder at a time, who keeps it by renewing it, until released', async () => {
    await closing(async (a, b) => {
      expect(await a.leaseHolder('sync')).toBeNull();
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 1_000)).toBe(true);
      expect(await b.takeLease('sync', 'host/2/b', 30_000, 1_001)).toBe(false);
      expect(await b.leaseHolder('sync')).toBe('host/1/a');
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 2_000)).toBe(true);
      // Another name is another lease.
      expect(await b.takeLease('other', 'host/2/b', 30_000, 2_001)).toBe(true);
      // Released by another holder's name: nothing changes.
      await b.releaseLease('sync', 'host/2/b');
      expect(await b.leaseHolder('sync')).toBe('host/1/a');
      await a.releaseLease('sync', 'host/1/a');
      expect(await a.leaseHolder('sync')).toBeNull();
      expect(await b.takeLease('sync', 'host/2/b', 30_000, 3_000)).toBe(true);
      expect(await a.takeLease('sync', 'host/1/a', 30_000, 3_001)).toBe(false);
      await b.releaseLease('sync', 'host/2/b');
      await b.releaseLease('other', 'host/2/b');
    });
  });

  it('passes the kinds one process wants read to the other, each once, the latest ask kept', async () => {
    await closing(async (a, b) => {
      expect(await b.takeWants()).toEqual([]);
      await a.requestSync(['invoices', 'payments'], 1_000);
      await a.requestSync(['invoices'], 2_000);
      await a.requestSync([], 3_000);
      expect((await b.takeWants()).sort()).toEqual(['invoices', 'payments']);
      expect(await b.takeWants()).toEqual([]);
      expect(await a.takeWants()).toEqual([]);
    });
  });

  it("shares a 429's hold of the key's calls: raised only, the later of two kept", async () => {
    await closing(async (a, b) => {
      expect(await b.rateHold()).toBe(0);
      await a.shareRateHold(5_000.4);
      expect(await b.rateHold()).toBe(5_000);
      await b.shareRateHold(4_000);
      expect(await a.rateHold()).toBe(5_000);
      await b.shareRateHold(12_000_000_000_000);
      expect(await a.rateHold()).toBe(12_000_000_000_000);
    });
  });
});
