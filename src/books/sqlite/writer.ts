// The mirror's writes over SQLite. Each sync step is one atomic batch: the records, the events their diffs
// made, and (when the step completes a read) the kind's new mark, so a crash leaves all or none of it.

import type { Db, SqlStatement, SqlValue } from '../../db/sqlite/db.js';
import type { BooksEvent } from '../../events/event.js';
import { type Rec, stampOf } from '../record.js';
import { allocationsOf, linesOf } from '../sql/columns.js';
import { READ_RATE_HOLD, SHARE_RATE_HOLD } from '../sql/rate-hold.js';
import type { KindMark, StoredEvent } from '../store.js';
import type { LinesCoverage, MirroredKind } from '../types.js';
import { COLUMNS, cellsOf } from './columns.js';
import { unitsOf } from './exact-sums.js';

function upsert(kind: MirroredKind, record: Rec): SqlStatement {
  const cols = ['id', ...COLUMNS[kind], 'stamp', 'raw'];
  const updates = cols
    .slice(1)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  return {
    sql: `INSERT INTO ${kind} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT (id) DO UPDATE SET ${updates}`,
    args: [record.id, ...cellsOf(kind, record), stampOf(record), JSON.stringify(record)],
  };
}

function allocationStatements(payment: Rec): SqlStatement[] {
  return [
    { sql: 'DELETE FROM allocations WHERE payment_id = ?', args: [payment.id] },
    ...allocationsOf(payment).map((a, i) => ({
      sql: 'INSERT INTO allocations (payment_id, position, invoice_id, invoice_number, amount) VALUES (?, ?, ?, ?, ?)',
      args: [payment.id, i, ...a] as SqlValue[],
    })),
  ];
}

const markStatement = (kind: MirroredKind, mark: KindMark): SqlStatement => ({
  sql: 'INSERT OR REPLACE INTO marks (kind, watermark, synced_at, synced_ms) VALUES (?, ?, ?, ?)',
  args: [kind, mark.watermark, mark.syncedAt, mark.syncedMs],
});

export function sqliteWriter(db: Db) {
  return {
    async stored(kind: MirroredKind, ids: readonly number[]): Promise<Map<number, Rec>> {
      const found = new Map<number, Rec>();
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        for (const [raw] of db.rows(`SELECT raw FROM ${kind} WHERE id IN (${chunk.map(() => '?').join(', ')})`, chunk)) {
          const rec = JSON.parse(String(raw)) as Rec;
          found.set(rec.id, rec);
        }
      }
      return found;
    },

    async write(kind: MirroredKind, records: readonly Rec[], events: readonly BooksEvent[], mark?: KindMark): Promise<void> {
      const statements: SqlStatement[] = [];
      for (const record of records) {
        statements.push(upsert(kind, record));
        if (kind === 'payments') statements.push(...allocationStatements(record));
      }
      const at = Date.now();
      for (const event of events)
        statements.push({ sql: 'INSERT INTO events (at_ms, body) VALUES (?, ?)', args: [at, JSON.stringify(event)] });
      if (mark) statements.push(markStatement(kind, mark));
      if (statements.length > 0) db.batch(statements);
    },

    async setLines(invoiceId: number, stamp: string, items: unknown): Promise<void> {
      db.batch([
        { sql: 'DELETE FROM lines WHERE invoice_id = ?', args: [invoiceId] },
        ...linesOf(items).map((l, i) => {
          const [, quantity, , tax, total] = l as (string | null)[];
          return {
            sql: `INSERT INTO lines (invoice_id, position, description, quantity, unit_price, tax_amount, line_total, product_id,
                      total_units, total_places, tax_units, tax_places, quantity_units, quantity_places) VALUES (${Array(14).fill('?').join(', ')})`,
            args: [invoiceId, i, ...l, ...unitsOf(total ?? null), ...unitsOf(tax ?? null), ...unitsOf(quantity ?? null)],
          };
        }),
        { sql: 'UPDATE invoices SET lines_stamp = ? WHERE id = ?', args: [stamp, invoiceId] },
      ]);
    },

    async linesWanted(limit: number): Promise<{ id: number; stamp: string }[]> {
      const rows = db.rows('SELECT id, stamp FROM invoices WHERE lines_stamp IS NULL OR lines_stamp <> stamp ORDER BY id DESC LIMIT ?', [
        limit,
      ]);
      return rows.map(([id, stamp]) => ({ id: Number(id), stamp: String(stamp) }));
    },

    async coverage(): Promise<LinesCoverage> {
      const [n, w] = db.rows('SELECT COUNT(*), SUM(CASE WHEN lines_stamp = stamp THEN 1 ELSE 0 END) FROM invoices')[0] ?? [];
      return { invoices: Number(n ?? 0), withLines: Number(w ?? 0) };
    },

    async counts(): Promise<Record<MirroredKind | 'lines', number>> {
      const n = (table: string): number => Number(db.value(`SELECT COUNT(*) FROM ${table}`) ?? 0);
      return {
        customers: n('customers'),
        invoices: n('invoices'),
        quotes: n('quotes'),
        payments: n('payments'),
        products: n('products'),
        lines: n('lines'),
      };
    },

    async marks(): Promise<Map<MirroredKind, KindMark>> {
      return new Map(
        db
          .rows('SELECT kind, watermark, synced_at, synced_ms FROM marks')
          .map(([kind, watermark, syncedAt, syncedMs]) => [
            String(kind) as MirroredKind,
            { watermark: watermark === null ? null : String(watermark), syncedAt: String(syncedAt), syncedMs: Number(syncedMs) },
          ]),
      );
    },

    async eventsAfter(seq: number): Promise<StoredEvent[]> {
      return db
        .rows('SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT 500', [seq])
        .map(([n, body]) => ({ seq: Number(n), event: JSON.parse(String(body)) as BooksEvent }));
    },

    async lastEventSeq(): Promise<number> {
      return Number(db.value('SELECT COALESCE(MAX(seq), 0) FROM events') ?? 0);
    },

    async pruneEvents(olderThanMs: number): Promise<void> {
      db.run('DELETE FROM events WHERE at_ms < ?', [olderThanMs]);
    },

    /** Takes or renews the named lease for `holder`; false when another holds it and it has not expired. */
    async takeLease(name: string, holder: string, ttlMs: number, nowMs: number): Promise<boolean> {
      db.run(
        `INSERT INTO lease (name, holder, expires_ms) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
         WHERE lease.holder = excluded.holder OR lease.expires_ms < ?`,
        [name, holder, nowMs + ttlMs, nowMs],
      );
      return db.value('SELECT holder FROM lease WHERE name = ?', [name]) === holder;
    },

    async requestSync(kinds: readonly MirroredKind[], atMs: number): Promise<void> {
      db.batch(kinds.map((kind) => ({ sql: 'INSERT OR REPLACE INTO wants (kind, at_ms) VALUES (?, ?)', args: [kind, atMs] })));
    },

    async takeWants(): Promise<MirroredKind[]> {
      const found = db.rows('SELECT kind, at_ms FROM wants');
      if (found.length === 0) return [];
      db.batch(
        found.map(([kind, atMs]) => ({ sql: 'DELETE FROM wants WHERE kind = ? AND at_ms = ?', args: [kind ?? null, atMs ?? null] })),
      );
      return found.map(([kind]) => String(kind) as MirroredKind);
    },

    async releaseLease(name: string, holder: string): Promise<void> {
      db.run('DELETE FROM lease WHERE name = ? AND holder = ?', [name, holder]);
    },

    async shareRateHold(untilMs: number): Promise<void> {
      db.run(SHARE_RATE_HOLD, [String(Math.round(untilMs))]);
    },

    async rateHold(): Promise<number> {
      return Number(db.value(READ_RATE_HOLD) ?? 0);
    },

    async leaseHolder(name: string): Promise<string | null> {
      const holder = db.value('SELECT holder FROM lease WHERE name = ?', [name]);
      return holder === null ? null : String(holder);
    },
  };
}

export type SqliteWriter = ReturnType<typeof sqliteWriter>;
