// The mirror's writes over SQLite. Each sync step is one atomic batch: the records, the events their diffs
// made, and (when the step completes a read) the kind's new mark, so a crash leaves all or none of it.
import type { Client, InStatement, InValue } from '@libsql/client';
import type { BooksEvent } from '../../events/event.js';
import { allocationsOf, cellsOf, COLUMNS, linesOf, stampOf, type Rec } from '../rows.js';
import type { KindMark, StoredEvent } from '../store.js';
import type { LinesCoverage, MirroredKind } from '../types.js';

function upsert(kind: MirroredKind, record: Rec): InStatement {
  const cols = ['id', ...COLUMNS[kind], 'stamp', 'raw'];
  const updates = cols.slice(1).map((c) => `${c} = excluded.${c}`).join(', ');
  return {
    sql: `INSERT INTO ${kind} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT (id) DO UPDATE SET ${updates}`,
    args: [record.id, ...cellsOf(kind, record), stampOf(record), JSON.stringify(record)],
  };
}

function allocationStatements(payment: Rec): InStatement[] {
  return [
    { sql: 'DELETE FROM allocations WHERE payment_id = ?', args: [payment.id] },
    ...allocationsOf(payment).map((a, i) => ({
      sql: 'INSERT INTO allocations (payment_id, position, invoice_id, invoice_number, amount) VALUES (?, ?, ?, ?, ?)',
      args: [payment.id, i, ...a] as InValue[],
    })),
  ];
}

const markStatement = (kind: MirroredKind, mark: KindMark): InStatement => ({
  sql: 'INSERT OR REPLACE INTO marks (kind, watermark, synced_at, synced_ms) VALUES (?, ?, ?, ?)',
  args: [kind, mark.watermark, mark.syncedAt, mark.syncedMs],
});

export function sqliteWriter(db: Client) {
  return {
    async stored(kind: MirroredKind, ids: readonly number[]): Promise<Map<number, Rec>> {
      const found = new Map<number, Rec>();
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        const r = await db.execute({ sql: `SELECT raw FROM ${kind} WHERE id IN (${chunk.map(() => '?').join(', ')})`, args: chunk });
        for (const row of r.rows) {
          const rec = JSON.parse(String(row['raw'])) as Rec;
          found.set(rec.id, rec);
        }
      }
      return found;
    },

    async write(kind: MirroredKind, records: readonly Rec[], events: readonly BooksEvent[], mark?: KindMark): Promise<void> {
      const statements: InStatement[] = [];
      for (const record of records) {
        statements.push(upsert(kind, record));
        if (kind === 'payments') statements.push(...allocationStatements(record));
      }
      const at = Date.now();
      for (const event of events) statements.push({ sql: 'INSERT INTO events (at_ms, body) VALUES (?, ?)', args: [at, JSON.stringify(event)] });
      if (mark) statements.push(markStatement(kind, mark));
      if (statements.length > 0) await db.batch(statements, 'write');
    },

    async setLines(invoiceId: number, stamp: string, items: unknown): Promise<void> {
      await db.batch(
        [
          { sql: 'DELETE FROM lines WHERE invoice_id = ?', args: [invoiceId] },
          ...linesOf(items).map((l, i) => ({
            sql: 'INSERT INTO lines (invoice_id, position, description, quantity, unit_price, tax_amount, line_total, product_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            args: [invoiceId, i, ...l],
          })),
          { sql: 'UPDATE invoices SET lines_stamp = ? WHERE id = ?', args: [stamp, invoiceId] },
        ],
        'write',
      );
    },

    async linesWanted(limit: number): Promise<{ id: number; stamp: string }[]> {
      const r = await db.execute({
        sql: 'SELECT id, stamp FROM invoices WHERE lines_stamp IS NULL OR lines_stamp <> stamp ORDER BY id DESC LIMIT ?',
        args: [limit],
      });
      return r.rows.map((row) => ({ id: Number(row['id']), stamp: String(row['stamp']) }));
    },

    async coverage(): Promise<LinesCoverage> {
      const r = await db.execute('SELECT COUNT(*) AS n, SUM(CASE WHEN lines_stamp = stamp THEN 1 ELSE 0 END) AS w FROM invoices');
      return { invoices: Number(r.rows[0]?.['n'] ?? 0), withLines: Number(r.rows[0]?.['w'] ?? 0) };
    },

    async counts(): Promise<Record<MirroredKind | 'lines', number>> {
      const r = await db.execute(
        `SELECT (SELECT COUNT(*) FROM customers) AS customers, (SELECT COUNT(*) FROM invoices) AS invoices, (SELECT COUNT(*) FROM quotes) AS quotes,
                (SELECT COUNT(*) FROM payments) AS payments, (SELECT COUNT(*) FROM products) AS products, (SELECT COUNT(*) FROM lines) AS lines`,
      );
      const row = r.rows[0] ?? {};
      const n = (k: string): number => Number((row as Record<string, unknown>)[k] ?? 0);
      return { customers: n('customers'), invoices: n('invoices'), quotes: n('quotes'), payments: n('payments'), products: n('products'), lines: n('lines') };
    },

    async marks(): Promise<Map<MirroredKind, KindMark>> {
      const r = await db.execute('SELECT kind, watermark, synced_at, synced_ms FROM marks');
      return new Map(
        r.rows.map((row) => [
          String(row['kind']) as MirroredKind,
          { watermark: row['watermark'] === null ? null : String(row['watermark']), syncedAt: String(row['synced_at']), syncedMs: Number(row['synced_ms']) },
        ]),
      );
    },

    async eventsAfter(seq: number): Promise<StoredEvent[]> {
      const r = await db.execute({ sql: 'SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT 500', args: [seq] });
      return r.rows.map((row) => ({ seq: Number(row['seq']), event: JSON.parse(String(row['body'])) as BooksEvent }));
    },

    async lastEventSeq(): Promise<number> {
      const r = await db.execute('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
      return Number(r.rows[0]?.['seq'] ?? 0);
    },

    async pruneEvents(olderThanMs: number): Promise<void> {
      await db.execute({ sql: 'DELETE FROM events WHERE at_ms < ?', args: [olderThanMs] });
    },

    /** Takes or renews the named lease for `holder`; false when another holds it and it has not expired. */
    async takeLease(name: string, holder: string, ttlMs: number, nowMs: number): Promise<boolean> {
      await db.execute({
        sql: `INSERT INTO lease (name, holder, expires_ms) VALUES (?, ?, ?)
              ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
              WHERE lease.holder = excluded.holder OR lease.expires_ms < ?`,
        args: [name, holder, nowMs + ttlMs, nowMs],
      });
      const r = await db.execute({ sql: 'SELECT holder FROM lease WHERE name = ?', args: [name] });
      return r.rows[0]?.['holder'] === holder;
    },

    async releaseLease(name: string, holder: string): Promise<void> {
      await db.execute({ sql: 'DELETE FROM lease WHERE name = ? AND holder = ?', args: [name, holder] });
    },
  };
}

export type SqliteWriter = ReturnType<typeof sqliteWriter>;
