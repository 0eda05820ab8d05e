// The mirror's writes over Postgres. Each sync step is one transaction: the records, the events their diffs
// made, and (when the step completes a read) the kind's new mark. Events are numbered in the order they
// commit: a transaction that writes some first takes a lock that the next such one waits for, so a process
// that has read event n has seen every event before it (a sequence alone would let a later number commit
// first, and the earlier one be skipped). Its NOTIFY reaches every process on the mirror at the commit.

import { createHash } from 'node:crypto';
import { Decimal } from '../../api/decimal.js';
import type { Arg } from '../../db/cells.js';
import { num, str } from '../../db/cells.js';
import type { PgArg, PgDb, Query } from '../../db/postgres/db.js';
import type { PgSession } from '../../db/postgres/session.js';
import type { BooksEvent } from '../../events/event.js';
import { type Rec, stampOf } from '../record.js';
import { allocationsOf, linesOf, summedAmountsOf, typedCells } from '../sql/columns.js';
import { READ_RATE_HOLD, SHARE_RATE_HOLD } from '../sql/rate-hold.js';
import type { KindMark, StoredEvent } from '../store.js';
import type { LinesCoverage, MirroredKind } from '../types.js';
import { COLUMNS, eventsChannel, INVOICE_PRODUCT_FIELDS, sumInvoiceProducts } from './schema.js';

/** An amount's numeric twin: the text itself when it is a plain decimal, else null (the text stays). */
const numeric = (amount: string | null): string | null => (Decimal.read(amount) === null ? null : amount);

/** The two 31-bit keys of a named advisory lock of the mirror in `schema` (each schema's locks its own). */
export function lockKeys(name: string, schema: string): [number, number] {
  const digest = createHash('sha256').update(`invoicing-mcp|${schema}|${name}`).digest();
  return [digest.readUInt32BE(0) & 0x7fffffff, digest.readUInt32BE(4) & 0x7fffffff];
}

/** `INSERT ... VALUES (...), (...)` of rows of `width` values. */
function values(rows: readonly (readonly PgArg[])[]): { sql: string; args: PgArg[] } {
  return { sql: rows.map((r) => `(${r.map(() => '?').join(', ')})`).join(', '), args: rows.flat() };
}

function cellsOf(kind: MirroredKind, r: Rec): Arg[] {
  const cells = typedCells(kind, r);
  return kind === 'invoices' ? [...cells, ...summedAmountsOf(r).map(numeric)] : cells;
}

const fields = (prefix: string): string => INVOICE_PRODUCT_FIELDS.map((c) => `${prefix}${c}`).join(', ');
/** The invoices' header fields into their products' sums, where they changed. */
const HEADERS_TO_PRODUCTS = `UPDATE invoice_products p SET ${INVOICE_PRODUCT_FIELDS.map((c) => `${c} = i.${c}`).join(', ')}
  FROM invoices i WHERE p.invoice_id = i.id AND i.id = ANY(?::bigint[]) AND (${fields('p.')}) IS DISTINCT FROM (${fields('i.')})`;

async function upsert(query: Query, kind: MirroredKind, records: readonly Rec[]): Promise<void> {
  // One statement may not touch a row twice: the last of a record sent twice wins.
  const last = [...new Map(records.map((r) => [r.id, r])).values()];
  const cols = ['id', ...COLUMNS[kind], 'stamp', 'raw'];
  const updates = cols
    .slice(1)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  const v = values(last.map((r) => [r.id, ...cellsOf(kind, r), stampOf(r), JSON.stringify(r)]));
  await query(`INSERT INTO ${kind} (${cols.join(', ')}) VALUES ${v.sql} ON CONFLICT (id) DO UPDATE SET ${updates}`, v.args);
  if (kind === 'invoices') await query(HEADERS_TO_PRODUCTS, [last.map((r) => r.id)]);
  if (kind !== 'payments') return;
  await query('DELETE FROM allocations WHERE payment_id = ANY(?::bigint[])', [last.map((r) => r.id)]);
  const allocations = last.flatMap((p) => allocationsOf(p).map((a, i) => [p.id, i, ...a]));
  if (allocations.length === 0) return;
  const a = values(allocations);
  await query(`INSERT INTO allocations (payment_id, position, invoice_id, invoice_number, amount) VALUES ${a.sql}`, a.args);
}

export function postgresWriter(db: PgDb, session: PgSession) {
  const eventsLock = lockKeys('events', db.schema);
  return {
    async stored(kind: MirroredKind, ids: readonly number[]): Promise<Map<number, Rec>> {
      const found = new Map<number, Rec>();
      if (ids.length === 0) return found;
      for (const [raw] of await db.rows(`SELECT raw FROM ${kind} WHERE id = ANY(?::bigint[])`, [ids])) {
        const rec = JSON.parse(str(raw)) as Rec;
        found.set(rec.id, rec);
      }
      return found;
    },

    async write(kind: MirroredKind, records: readonly Rec[], events: readonly BooksEvent[], mark?: KindMark): Promise<void> {
      if (records.length === 0 && events.length === 0 && !mark) return;
      await db.transaction(async (query) => {
        if (events.length > 0) await query('SELECT pg_advisory_xact_lock(?, ?)', eventsLock);
        if (records.length > 0) await upsert(query, kind, records);
        if (events.length > 0) {
          const at = Date.now();
          const v = values(events.map((e) => [at, JSON.stringify(e)]));
          await query(`INSERT INTO events (at_ms, body) VALUES ${v.sql}`, v.args);
          await query(`NOTIFY ${eventsChannel(db.schema)}`);
        }
        if (mark)
          await query(
            `INSERT INTO marks (kind, watermark, synced_at, synced_ms) VALUES (?, ?, ?, ?)
             ON CONFLICT (kind) DO UPDATE SET watermark = excluded.watermark, synced_at = excluded.synced_at, synced_ms = excluded.synced_ms`,
            [kind, mark.watermark, mark.syncedAt, mark.syncedMs],
          );
      });
    },

    async setLines(invoiceId: number, stamp: string, items: unknown): Promise<void> {
      await db.transaction(async (query) => {
        // One writer of an invoice's lines at a time (an answer and the background may fetch the same one):
        // the second waits here, then deletes what the first wrote instead of inserting beside it.
        await query('SELECT 1 FROM invoices WHERE id = ? FOR UPDATE', [invoiceId]);
        // Two statements after the lock, one round trip each: the old lines and their sums out and the stamp
        // set, then the new lines in, summed per product from the rows the same statement inserts.
        await query(
          `WITH sums AS (DELETE FROM invoice_products WHERE invoice_id = ?), stamp AS (UPDATE invoices SET lines_stamp = ? WHERE id = ?)
           DELETE FROM lines WHERE invoice_id = ?`,
          [invoiceId, stamp, invoiceId, invoiceId],
        );
        const rows = linesOf(items).map((l, i) => {
          const [, quantity, , tax, total] = l as (string | null)[];
          return [invoiceId, i, ...l, numeric(total ?? null), numeric(tax ?? null), numeric(quantity ?? null)];
        });
        if (rows.length === 0) return;
        const v = values(rows);
        await query(
          `WITH inserted AS (
             INSERT INTO lines (invoice_id, position, description, quantity, unit_price, tax_amount, line_total, product_id,
                                total_n, tax_n, quantity_n) VALUES ${v.sql}
             RETURNING invoice_id, position, product_id, total_n, tax_n, quantity_n)
           ${sumInvoiceProducts('inserted')}`,
          v.args,
        );
      });
    },

    async linesWanted(limit: number): Promise<{ id: number; stamp: string }[]> {
      const rows = await db.rows(
        'SELECT id, stamp FROM invoices WHERE lines_stamp IS NULL OR lines_stamp <> stamp ORDER BY id DESC LIMIT ?',
        [limit],
      );
      return rows.map(([id, stamp]) => ({ id: num(id), stamp: str(stamp) }));
    },

    async coverage(): Promise<LinesCoverage> {
      const [n, w] = (await db.rows('SELECT COUNT(*), COUNT(*) FILTER (WHERE lines_stamp = stamp) FROM invoices'))[0] ?? [];
      return { invoices: num(n ?? 0), withLines: num(w ?? 0) };
    },

    async counts(): Promise<Record<MirroredKind | 'lines', number>> {
      const [row] = await db.rows(
        `SELECT ${['customers', 'invoices', 'quotes', 'payments', 'products', 'lines'].map((t) => `(SELECT COUNT(*) FROM ${t})`).join(', ')}`,
      );
      const [customers, invoices, quotes, payments, products, lines] = (row ?? []).map(num);
      return {
        customers: customers ?? 0,
        invoices: invoices ?? 0,
        quotes: quotes ?? 0,
        payments: payments ?? 0,
        products: products ?? 0,
        lines: lines ?? 0,
      };
    },

    async marks(): Promise<Map<MirroredKind, KindMark>> {
      const rows = await db.rows('SELECT kind, watermark, synced_at, synced_ms FROM marks');
      return new Map(
        rows.map(([kind, watermark, syncedAt, syncedMs]) => [
          str(kind) as MirroredKind,
          { watermark: watermark === null ? null : str(watermark), syncedAt: str(syncedAt), syncedMs: num(syncedMs) },
        ]),
      );
    },

    async eventsAfter(seq: number): Promise<StoredEvent[]> {
      const rows = await db.rows('SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT 500', [seq]);
      return rows.map(([n, body]) => ({ seq: num(n), event: JSON.parse(str(body)) as BooksEvent }));
    },

    async lastEventSeq(): Promise<number> {
      return num(await db.value('SELECT COALESCE(MAX(seq), 0) FROM events'));
    },

    async pruneEvents(olderThanMs: number): Promise<void> {
      await db.rows('DELETE FROM events WHERE at_ms < ?', [olderThanMs]);
    },

    async watchEvents(onWritten: () => void): Promise<() => void> {
      return session.listen(eventsChannel(db.schema), onWritten);
    },

    /**
     * The lease is the named advisory lock, held by this process's session connection until released or the
     * connection ends (its time to live does not apply: a live connection is a live holder). The holder's
     * name is written beside it for `mirror status`.
     */
    async takeLease(name: string, holder: string): Promise<boolean> {
      if (!(await session.tryLock(lockKeys(name, db.schema)))) return false;
      await db.rows('INSERT INTO lease (name, holder) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder', [
        name,
        holder,
      ]);
      return true;
    },

    async releaseLease(name: string, holder: string): Promise<void> {
      await db.rows('DELETE FROM lease WHERE name = ? AND holder = ?', [name, holder]);
      await session.unlock(lockKeys(name, db.schema));
    },

    async shareRateHold(untilMs: number): Promise<void> {
      await db.rows(SHARE_RATE_HOLD, [String(Math.round(untilMs))]);
    },

    async rateHold(): Promise<number> {
      return Number((await db.value(READ_RATE_HOLD)) ?? 0);
    },

    async leaseHolder(name: string): Promise<string | null> {
      return leaseHolderIn(db.rows, name, db.schema);
    },

    async requestSync(kinds: readonly MirroredKind[], atMs: number): Promise<void> {
      if (kinds.length === 0) return;
      const v = values(kinds.map((kind) => [kind, atMs]));
      await db.rows(`INSERT INTO wants (kind, at_ms) VALUES ${v.sql} ON CONFLICT (kind) DO UPDATE SET at_ms = excluded.at_ms`, v.args);
    },

    async takeWants(): Promise<MirroredKind[]> {
      return (await db.rows('DELETE FROM wants RETURNING kind')).map(([kind]) => str(kind) as MirroredKind);
    },
  };
}

/** Who holds the named lease: the name written beside the lock while some connection holds the lock. */
export async function leaseHolderIn(rows: Query, name: string, schema: string): Promise<string | null> {
  const [classid, objid] = lockKeys(name, schema);
  const [row] = await rows(
    `SELECT COALESCE((SELECT holder FROM lease WHERE name = ?), 'unknown') FROM pg_locks
     WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid = ?::bigint::oid AND objid = ?::bigint::oid AND objsubid = 2`,
    [name, classid, objid],
  );
  return row ? str(row[0]) : null;
}
