// The mirror's store (MirrorStore) written once above the engines (src/store/engine.ts): records and their
// allocations, lines, events, marks, the lease, other processes' wants and the shared rate hold, each in the
// same SQL on every engine but for its dialect. What an engine adds for exact sums (SQLite whole units,
// Postgres `numeric` and its products' sums) comes in as its additions (EngineBooks): the columns and cells it
// keeps beside the amounts, the statements that keep them, and the reader's sums.

import type { BooksEvent } from '../events/event.js';
import { num, str } from './cells.js';
import { type EngineColumns, writtenColumns } from './ddl.js';
import type { Engine, Query, QueryArg } from './engine.js';
import { plainReads } from './plain-reads.js';
import { READ_RATE_HOLD, SHARE_RATE_HOLD } from './rate-hold.js';
import { type Rec, stampMsOf, stampOf } from './record.js';
import { chunks } from './rows.js';
import type { KindMark, MirrorStore, StoredEvent } from './store.js';
import { ALLOCATIONS, cellWriter, itemsOf, KIND_TABLES, LINES } from './tables.js';
import { taskTable } from './tasks.js';
import type { LinesCoverage, MirroredKind, MirrorReader } from './types.js';
import { type Dialect, invoiceWhere } from './where.js';

export type Sums = Pick<MirrorReader, 'lineSums' | 'invoiceSums' | 'owing'>;

/** What an engine adds to the store for its exact sums. */
export interface EngineBooks {
  /** Not draft or void, and a balance above zero, in the engine's columns. */
  receivable(prefix?: string): string;
  /** Its names for the column types, and the columns it keeps beside each summed amount. */
  columns: EngineColumns;
  /** After invoices' headers were written, in the same transaction (Postgres: their products' sums follow them). */
  invoicesWritten?(query: Query, ids: readonly number[]): Promise<void>;
  /** Deletes an invoice's lines (by default the lines alone; Postgres: their products' sums too, in one statement). */
  clearLines?(query: Query, invoiceId: number): Promise<void>;
  /** The statement that inserts lines, given the plain insert (Postgres: summed per product in the same statement). */
  insertingLines?(insert: string): string;
  /** The reader's sums, done in the engine's exact arithmetic. */
  sums(query: Query, dialect: Dialect): Sums;
}

/** An invoice whose lines are not stored for its current header (or at all). */
const LINES_NOT_STORED = '(lines_stamp IS NULL OR lines_stamp <> stamp)';

/** One row per record: one statement may not touch a row twice, and the last of a record sent twice wins. */
const lastOfEach = (records: readonly Rec[]): Rec[] => [...new Map(records.map((r) => [r.id, r])).values()];

export function storeReader(query: Query, dialect: Dialect, books: EngineBooks): MirrorReader {
  return { ...plainReads(query, dialect), ...books.sums(query, dialect) };
}

/** The counts of each kind's rows and lines (`mirror status` too). */
export async function countsIn(query: Query): Promise<Record<MirroredKind | 'lines', number>> {
  const tables = ['customers', 'invoices', 'quotes', 'payments', 'products', 'lines'] as const;
  const [row = []] = await query(`SELECT ${tables.map((t) => `(SELECT COUNT(*) FROM ${t})`).join(', ')}`);
  return Object.fromEntries(tables.map((t, i) => [t, num(row[i] ?? 0)])) as Record<MirroredKind | 'lines', number>;
}

export async function coverageIn(query: Query): Promise<LinesCoverage> {
  const [[n, w] = []] = await query('SELECT COUNT(*), SUM(CASE WHEN lines_stamp = stamp THEN 1 ELSE 0 END) FROM invoices');
  return { invoices: num(n ?? 0), withLines: num(w ?? 0) };
}

export async function marksIn(query: Query): Promise<Map<MirroredKind, KindMark>> {
  return new Map(
    (await query('SELECT kind, watermark, synced_at, synced_ms FROM marks')).map(([kind, watermark, syncedAt, syncedMs]) => [
      str(kind) as MirroredKind,
      { watermark: watermark === null ? null : str(watermark), syncedAt: str(syncedAt), syncedMs: num(syncedMs) },
    ]),
  );
}

/** Each kind's upsert: its statement around the rows' values, and what writes a record's cells. */
type Upserts = Record<MirroredKind, { sqlOf: (values: string) => string; cellsOf: ReturnType<typeof cellWriter> }>;

/**
 * Each kind's upsert, made once. A stored record is replaced only by one stamped at the same instant or later:
 * two writers that each read before they wrote (a sync's page, a webhook) never take the mirror back to an
 * older state, whatever order they commit in. A record with no stamp is written as it comes.
 */
function kindUpserts(books: EngineBooks): Upserts {
  return Object.fromEntries(
    Object.entries(KIND_TABLES).map(([kind, table]) => {
      const cols = ['id', ...writtenColumns(table, books.columns), 'stamp', 'stamp_ms', 'raw'];
      const updates = cols
        .slice(1)
        .map((c) => `${c} = excluded.${c}`)
        .join(', ');
      const sqlOf = (values: string): string =>
        `INSERT INTO ${kind} (${cols.join(', ')}) VALUES ${values} ON CONFLICT (id) DO UPDATE SET ${updates}
         WHERE excluded.stamp_ms IS NULL OR ${kind}.stamp_ms IS NULL OR excluded.stamp_ms >= ${kind}.stamp_ms`;
      return [kind, { sqlOf, cellsOf: cellWriter(table, books.columns.exactCells) }];
    }),
  ) as Upserts;
}

/** Writes records of one kind in a transaction: their rows, invoices' engine additions, payments' allocations. */
function recordUpsert(engine: Engine, books: EngineBooks) {
  const upserts = kindUpserts(books);
  const allocationCells = cellWriter(ALLOCATIONS, books.columns.exactCells);
  const allocationColumns = [...ALLOCATIONS.key, ...writtenColumns(ALLOCATIONS, books.columns)].join(', ');
  return async (q: Query, kind: MirroredKind, records: readonly Rec[]): Promise<void> => {
    const last = lastOfEach(records);
    const { sqlOf, cellsOf } = upserts[kind];
    await engine.insert(
      q,
      sqlOf,
      last.map((r) => [r.id, ...cellsOf(r), stampOf(r), stampMsOf(r), JSON.stringify(r)]),
    );
    const ids = last.map((r) => r.id);
    if (kind === 'invoices') await books.invoicesWritten?.(q, ids);
    if (kind !== 'payments') return;
    for (const chunk of chunks(ids)) {
      const any = engine.dialect.anyOf('payment_id', chunk);
      await q(`DELETE FROM allocations WHERE ${any.sql}`, any.args);
    }
    await engine.insert(
      q,
      (values) => `INSERT INTO allocations (${allocationColumns}) VALUES ${values}`,
      last.flatMap((p) => itemsOf(p.allocations).map((a, i): QueryArg[] => [p.id, i, ...allocationCells(a)])),
    );
  };
}

/**
 * Appends a write's events in its transaction. An event about a record of this write is kept only when the
 * store holds that record now (it was written, not refused as older than the one stored); one about another
 * record, or about a record with no stamp, is kept as it comes.
 */
async function appendEvents(q: Query, kind: MirroredKind, events: readonly BooksEvent[]): Promise<void> {
  const at = Date.now();
  const stamped = (e: BooksEvent): string | null => (e.record.kind === kind && e.record.id === e.data.id ? stampOf(e.data) : null);
  for (const e of events) {
    const stamp = stamped(e);
    const body = JSON.stringify(e);
    if (stamp === null) await q('INSERT INTO events (at_ms, body) VALUES (?, ?)', [at, body]);
    else
      await q(
        `INSERT INTO events (at_ms, body) SELECT CAST(? AS BIGINT), CAST(? AS TEXT)
         WHERE EXISTS (SELECT 1 FROM ${kind} WHERE id = ? AND stamp = ?)`,
        [at, body, e.record.id, stamp],
      );
  }
}

/** The records: read back raw, and written with their events and their kind's mark. */
function recordsOn(engine: Engine, books: EngineBooks): Pick<MirrorStore, 'stored' | 'write'> {
  const upsert = recordUpsert(engine, books);
  return {
    async stored(kind, ids) {
      const found = new Map<number, Rec>();
      for (const chunk of chunks(ids)) {
        const any = engine.dialect.anyOf('id', chunk);
        for (const [raw] of await engine.query(`SELECT raw FROM ${kind} WHERE ${any.sql}`, any.args)) {
          const rec = JSON.parse(str(raw)) as Rec;
          found.set(rec.id, rec);
        }
      }
      return found;
    },

    /**
     * One transaction: the records, the events their diffs made, and the kind's new mark. Events are numbered
     * in the order they commit (a write with events waits its turn), so a process that has read event n has
     * seen every event before it; the processes listening are told at the commit.
     */
    async write(kind, records, events: readonly BooksEvent[], mark?: KindMark) {
      if (records.length === 0 && events.length === 0 && !mark) return;
      await engine.write(async (q) => {
        if (events.length > 0) await engine.inTurn(q, 'events');
        if (records.length > 0) await upsert(q, kind, records);
        if (events.length > 0) {
          await appendEvents(q, kind, events);
          await engine.notify(q, 'events');
        }
        if (mark)
          await q(
            `INSERT INTO marks (kind, watermark, synced_at, synced_ms) VALUES (?, ?, ?, ?)
             ON CONFLICT (kind) DO UPDATE SET watermark = excluded.watermark, synced_at = excluded.synced_at, synced_ms = excluded.synced_ms`,
            [kind, mark.watermark, mark.syncedAt, mark.syncedMs],
          );
      });
    },
  };
}

type LineParts = 'setLines' | 'linesWanted' | 'linesStored' | 'linesMissing';

/** Invoices' lines: stored for a header's stamp, and which invoices still want theirs. */
function linesOn(engine: Engine, books: EngineBooks, dialect: Dialect): Pick<MirrorStore, LineParts> {
  const { query } = engine;
  const lineCells = cellWriter(LINES, books.columns.exactCells);
  const clearLines =
    books.clearLines ?? (async (q: Query, invoiceId: number) => void (await q('DELETE FROM lines WHERE invoice_id = ?', [invoiceId])));
  const lineColumns = [...LINES.key, ...writtenColumns(LINES, books.columns)].join(', ');
  const insertLines = (values: string): string => {
    const insert = `INSERT INTO lines (${lineColumns}) VALUES ${values}`;
    return books.insertingLines ? books.insertingLines(insert) : insert;
  };
  return {
    async setLines(invoiceId, stamp, items) {
      await engine.write(async (q) => {
        // The stamp first: on Postgres it locks the invoice's row, so a second writer of its lines (an answer
        // and the background may fetch the same one) waits here, then deletes what the first wrote.
        await q('UPDATE invoices SET lines_stamp = ? WHERE id = ?', [stamp, invoiceId]);
        await clearLines(q, invoiceId);
        const rows = itemsOf(items).map((l, i): QueryArg[] => [invoiceId, i, ...lineCells(l)]);
        await engine.insert(q, insertLines, rows);
      });
    },

    async linesWanted(limit) {
      const rows = await query(`SELECT id, stamp FROM invoices WHERE ${LINES_NOT_STORED} ORDER BY id DESC LIMIT ?`, [limit]);
      return rows.map(([id, stamp]) => ({ id: num(id), stamp: str(stamp) }));
    },
    async linesStored(invoiceId) {
      return (await query(`SELECT 1 FROM invoices WHERE id = ? AND NOT ${LINES_NOT_STORED}`, [invoiceId])).length > 0;
    },
    async linesMissing(filter) {
      const w = invoiceWhere(dialect, filter);
      w.add(LINES_NOT_STORED);
      const rows = await engine.read(`SELECT id, stamp FROM invoices${w} ORDER BY id DESC`, w.args);
      return rows.map(([id, stamp]) => ({ id: num(id), stamp: str(stamp) }));
    },
  };
}

/** The numbered events other processes read after the last they saw, and the signal that more were written. */
function eventsOn(engine: Engine): Pick<MirrorStore, 'eventsAfter' | 'lastEventSeq' | 'pruneEvents' | 'watchEvents'> {
  const { query } = engine;
  return {
    async eventsAfter(seq): Promise<StoredEvent[]> {
      const rows = await query('SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT 500', [seq]);
      return rows.map(([n, body]) => ({ seq: num(n), event: JSON.parse(str(body)) as BooksEvent }));
    },
    async lastEventSeq() {
      const [[seq] = []] = await query('SELECT COALESCE(MAX(seq), 0) FROM events');
      return num(seq ?? 0);
    },
    async pruneEvents(olderThanMs) {
      await query('DELETE FROM events WHERE at_ms < ?', [olderThanMs]);
    },
    ...(engine.listen ? { watchEvents: (onWritten: () => void) => engine.listen!('events', onWritten) } : {}),
  };
}

type SharedParts = 'takeLease' | 'releaseLease' | 'leaseHolder' | 'requestSync' | 'takeWants' | 'shareRateHold' | 'rateHold';

/** What the processes on one store share: the lease, the kinds they want synced, the service's rate hold. */
function sharedOn(engine: Engine): Pick<MirrorStore, SharedParts> {
  const { query } = engine;
  return {
    takeLease: (name, holder, ttlMs, nowMs) => engine.locks.take(name, holder, ttlMs, nowMs),
    releaseLease: (name, holder) => engine.locks.release(name, holder),
    leaseHolder: (name) => engine.locks.holder(name),

    async requestSync(kinds, atMs) {
      if (kinds.length === 0) return;
      await engine.write((q) =>
        engine.insert(
          q,
          (values) => `INSERT INTO wants (kind, at_ms) VALUES ${values} ON CONFLICT (kind) DO UPDATE SET at_ms = excluded.at_ms`,
          kinds.map((kind) => [kind, atMs]),
        ),
      );
    },
    async takeWants() {
      return (await query('DELETE FROM wants RETURNING kind')).map(([kind]) => str(kind) as MirroredKind);
    },

    async shareRateHold(untilMs) {
      await query(SHARE_RATE_HOLD, [String(Math.round(untilMs))]);
    },
    async rateHold() {
      const [[until] = []] = await query(READ_RATE_HOLD);
      return Number(until ?? 0);
    },
  };
}

/** The store on an engine. `path`: where it lives (the file, the URL without its password); null in memory. */
export function sqlStore(engine: Engine, books: EngineBooks, where: { path: string | null; close: () => Promise<void> }): MirrorStore {
  const { query } = engine;
  const dialect: Dialect = { ...engine.dialect, receivable: books.receivable };
  const read = storeReader(engine.read, dialect, books);
  return {
    read,
    // Tasks read and write their rows on their own (UPDATE ... RETURNING), never inside a store's write.
    tasks: taskTable(query),
    path: where.path,
    // A snapshot that reads through the engine's own reads (SQLite's one connection) reads with the store's reader.
    snapshot: (work) => engine.snapshot((q) => work(q === engine.read ? read : storeReader(q, dialect, books))),
    ...recordsOn(engine, books),
    ...linesOn(engine, books, dialect),
    coverage: () => coverageIn(query),
    counts: () => countsIn(query),
    marks: () => marksIn(query),
    ...eventsOn(engine),
    ...sharedOn(engine),
    close: where.close,
  };
}
