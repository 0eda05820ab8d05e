// The mirror's queries (MirrorReader) over Postgres: the plain reads shared by every engine (../sql/), and
// the sums, which Postgres adds in `numeric`, exactly at any size, and hands back as decimal strings (the
// products' in line-sums.ts).

import type { Cells } from '../../db/cells.js';
import { num, str } from '../../db/cells.js';
import type { PgArg, Query } from '../../db/postgres/db.js';
import { plainReads } from '../sql/plain-reads.js';
import { invoiceRows } from '../sql/rows.js';
import { type Dialect, invoiceWhere } from '../sql/where.js';
import type { CurrencySums, MirrorReader } from '../types.js';
import { postgresLineSums } from './line-sums.js';
import { receivable } from './schema.js';

/** Letter case aside as SQLite's NOCASE takes it (the shared WHERE folds ASCII texts only). */
const POSTGRES: Dialect = {
  equalsNoCase: (expression) => `lower(${expression}) = lower(?::text)`,
  likeNoCase: (column) => `${column} ILIKE ? ESCAPE '\\'`,
  receivable,
};

/** What the reader queries through: the pool, or one connection's snapshot. */
export interface PgReads {
  rows: Query;
  value(sql: string, args?: readonly PgArg[]): Promise<Cells[number]>;
}

/** Reads through a snapshot's connection. */
export const readsOf = (query: Query): PgReads => ({ rows: query, value: async (sql, args) => (await query(sql, args))[0]?.[0] ?? null });

export function postgresReader(db: PgReads): MirrorReader {
  return {
    ...plainReads(db.rows, POSTGRES),
    lineSums: (filter, top) => postgresLineSums(db.rows, POSTGRES, filter, top),
    async invoiceSums(filter) {
      const w = invoiceWhere(POSTGRES, filter);
      const groups = await db.rows(
        `SELECT currency, COUNT(*), COUNT(*) FILTER (WHERE subtotal_n IS NULL OR tax_n IS NULL OR total_n IS NULL),
                SUM(subtotal_n)::text, SUM(tax_n)::text, SUM(total_n)::text
         FROM invoices${w} GROUP BY currency`,
        w.args,
      );
      if (groups.some((g) => num(g[2]) > 0)) return null;
      return groups.map(
        ([currency, count, , subtotal, tax, total]): CurrencySums => ({
          currency: str(currency),
          count: num(count),
          subtotal: [str(subtotal)],
          tax: [str(tax)],
          total: [str(total)],
        }),
      );
    },
    async owing(q) {
      const w = invoiceWhere(POSTGRES, { receivable: true, ...(q.customerId !== undefined ? { customerId: q.customerId } : {}) });
      if (q.dueBefore !== undefined) w.add('due_date < ?', q.dueBefore);
      // As on SQLite: a balance that is not plain, or a currency's balances written with different places, is
      // summed from the rows (the answer then says each balance with the places it was written with). Told from
      // the same scan as the sums: each group's plain balances and their places.
      const groups = await db.rows(
        `SELECT currency, due_date, COUNT(*), SUM(balance_n)::text, COUNT(balance_n), MIN(scale(balance_n)), MAX(scale(balance_n))
         FROM invoices${w} GROUP BY currency, due_date`,
        w.args,
      );
      const places = new Map<string, Set<string>>();
      for (const [currency, , count, , plain, fewest, most] of groups) {
        if (num(plain) < num(count)) return null;
        const seen = places.get(str(currency)) ?? new Set<string>();
        seen.add(String(fewest)).add(String(most));
        if (seen.size > 1) return null;
        places.set(str(currency), seen);
      }
      const byDueDate = groups.map(([currency, due, count, balance]) => ({
        currency: str(currency),
        due_date: str(due),
        count: num(count),
        balance: str(balance),
      }));
      const topCustomers = (
        await db.rows(
          // The name is looked up for the customers shown only (a join let the planner hash every invoice).
          `SELECT g.currency, g.customer_id, (SELECT i.customer_name FROM invoices i WHERE i.id = g.first_id), g.n, g.balance, g.oldest FROM (
             SELECT currency, customer_id, COUNT(*) AS n, SUM(balance_n)::text AS balance, MIN(due_date) AS oldest, MIN(id) AS first_id,
                    ROW_NUMBER() OVER (PARTITION BY currency ORDER BY SUM(balance_n) DESC, customer_id) AS place
             FROM invoices${w} GROUP BY currency, customer_id) g
           WHERE g.place <= ? ORDER BY g.currency, g.place`,
          [...w.args, q.top],
        )
      ).map(([currency, customerId, name, count, balance, oldest]) => ({
        currency: str(currency),
        customer_id: num(customerId),
        customer_name: str(name),
        count: num(count),
        balance: str(balance),
        oldest_due: str(oldest),
      }));
      const oldest = (
        await db.rows(`SELECT ${invoiceRows.columns} FROM invoices${w} ORDER BY due_date, id LIMIT ? OFFSET ?`, [
          ...w.args,
          q.limit,
          q.offset ?? 0,
        ])
      ).map(invoiceRows.row);
      return { byDueDate, topCustomers, oldest };
    },
  };
}
