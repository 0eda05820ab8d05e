// The mirror's sums over Postgres, added in `numeric`, exactly at any size, and handed back as decimal strings
// (the products' in line-sums.ts).

import { num, str } from '../cells.js';
import type { Query } from '../engine.js';
import { oldestOwed } from '../plain-reads.js';
import type { Sums } from '../sql-store.js';
import type { CurrencySums } from '../types.js';
import { type Dialect, invoiceWhere } from '../where.js';
import { postgresLineSums } from './line-sums.js';

export function postgresSums(rows: Query, dialect: Dialect): Sums {
  return {
    lineSums: (filter, top) => postgresLineSums(rows, dialect, filter, top),
    async invoiceSums(filter) {
      const w = invoiceWhere(dialect, filter);
      const groups = await rows(
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
      const w = invoiceWhere(dialect, { receivable: true, ...(q.customerId !== undefined ? { customerId: q.customerId } : {}) });
      if (q.dueBefore !== undefined) w.add('due_date < ?', q.dueBefore);
      // As on SQLite: a balance that is not plain, or a currency's balances written with different places, is
      // summed from the rows (the answer then says each balance with the places it was written with). Told from
      // the same scan as the sums: each group's plain balances and their places.
      const groups = await rows(
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
        await rows(
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
      const oldest = await oldestOwed(rows, w, q);
      return { byDueDate, topCustomers, oldest };
    },
  };
}
