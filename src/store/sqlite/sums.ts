// The mirror's sums over SQLite, added in 64-bit whole units of each amount's last place (exact-sums.ts).
// Rows come back as arrays in the SELECT's order.

import { num, str } from '../cells.js';
import type { Query } from '../engine.js';
import { oldestOwed } from '../plain-reads.js';
import type { Sums } from '../sql-store.js';
import type { CurrencySums, InvoiceFilter, LineSums, OwingQuestion, OwingSums, ProductLineSums } from '../types.js';
import { type Dialect, invoiceWhere, type Where } from '../where.js';
import { fromScaled } from './exact-sums.js';

/** The first cell of a statement's first row. */
const firstCell = async (rows: Query, sql: string, args: Parameters<Query>[1]) => (await rows(sql, args))[0]?.[0] ?? null;

/** SQLite's sum() stops with "integer overflow" rather than round: then the caller sums the rows itself. */
async function exactly<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (/integer overflow/i.test(String(err))) return null;
    throw err;
  }
}

type ProductGroup = ProductLineSums & { first: number; parts: number };

/**
 * The groups of lines added into one entry per product and currency, and the products' names; null when a line
 * has an amount the units cannot hold.
 */
function productsOfGroups(parts: Awaited<ReturnType<Query>>): { products: Map<string, ProductGroup>; names: Map<number, string> } | null {
  const products = new Map<string, ProductGroup>();
  // The products' names come with their sums (those the mirror holds): no second query for them. The
  // description and the name are those of the row MIN() picks (SQLite's bare columns; one product a group).
  const names = new Map<number, string>();
  for (const [
    productId,
    currency,
    pTotal,
    pTax,
    pQuantity,
    total,
    tax,
    quantity,
    invoices,
    unsummable,
    first,
    description,
    name,
  ] of parts) {
    if (num(unsummable) > 0) return null;
    if (productId !== null && name !== null && name !== undefined) names.set(num(productId), str(name));
    const key = `${String(productId)} ${str(currency)}`;
    const found = products.get(key) ?? {
      product_id: productId === null ? null : num(productId),
      currency: str(currency),
      invoices: num(invoices),
      line_total: [],
      tax_amount: [],
      quantity: [],
      description: str(description),
      first: num(first),
      parts: 0,
    };
    found.parts++;
    found.line_total.push(fromScaled(str(total), num(pTotal)));
    found.tax_amount.push(fromScaled(str(tax), num(pTax)));
    found.quantity.push(fromScaled(str(quantity), num(pQuantity)));
    if (num(first) < found.first) Object.assign(found, { first: num(first), description: str(description) });
    products.set(key, found);
  }
  return { products, names };
}

/** Lines summed per product and currency in the invoices the filter picks. */
async function lineSums(rows: Query, dialect: Dialect, filter: InvoiceFilter): Promise<LineSums | null> {
  const from = (w: Where): string => `FROM lines l JOIN invoices i ON i.id = l.invoice_id${w}`;
  const w = invoiceWhere(dialect, filter, 'i.');
  const places = 'l.total_places, l.tax_places, l.quantity_places';
  const parts = await exactly(() =>
    rows(
      `SELECT l.product_id, i.currency, ${places}, CAST(SUM(l.total_units) AS TEXT), CAST(SUM(l.tax_units) AS TEXT), CAST(SUM(l.quantity_units) AS TEXT),
              COUNT(DISTINCT l.invoice_id), SUM(l.total_units IS NULL OR l.tax_units IS NULL OR l.quantity_units IS NULL),
              MIN(l.invoice_id * 1000000 + l.position), l.description, p.name
       FROM lines l JOIN invoices i ON i.id = l.invoice_id LEFT JOIN products p ON p.id = l.product_id${w}
       GROUP BY l.product_id, i.currency, ${places}`,
      w.args,
    ),
  );
  if (parts === null) return null;
  const grouped = productsOfGroups(parts);
  if (grouped === null) return null;
  const { products, names } = grouped;
  // A product whose amounts were written with more than one number of places spans several groups:
  // its invoices are counted apart, once each.
  if ([...products.values()].some((p) => p.parts > 1)) {
    for (const [productId, currency, invoices] of await rows(
      `SELECT l.product_id, i.currency, COUNT(DISTINCT l.invoice_id) ${from(w)} GROUP BY l.product_id, i.currency`,
      w.args,
    )) {
      const found = products.get(`${String(productId)} ${str(currency)}`);
      if (found) found.invoices = num(invoices);
    }
  }
  // The invoices of the range that have lines, each found by the lines' key: no distinct over every line.
  w.add('EXISTS (SELECT 1 FROM lines l WHERE l.invoice_id = i.id)');
  const withLines = num(await firstCell(rows, `SELECT COUNT(*) FROM invoices i${w}`, w.args));
  return {
    products: [...products.values()].map(({ first: _first, parts: _parts, ...sums }) => sums),
    withLines,
    names,
  } satisfies LineSums;
}

/** Invoices summed per currency. */
async function invoiceSums(rows: Query, dialect: Dialect, filter: InvoiceFilter): Promise<CurrencySums[] | null> {
  const w = invoiceWhere(dialect, filter);
  const amounts = ['subtotal', 'tax', 'total'];
  const parts = await exactly(() =>
    rows(
      `SELECT currency, COUNT(*), SUM(${amounts.map((a) => `${a}_units IS NULL`).join(' OR ')}),
              ${amounts.map((a) => `${a}_places, CAST(SUM(${a}_units) AS TEXT)`).join(', ')}
       FROM invoices${w} GROUP BY currency, ${amounts.map((a) => `${a}_places`).join(', ')}`,
      w.args,
    ),
  );
  if (parts === null) return null;
  const sums = new Map<string, CurrencySums>();
  for (const [currency, count, unsummable, pSub, sub, pTax, tax, pTotal, total] of parts) {
    if (num(unsummable) > 0) return null;
    const found = sums.get(str(currency)) ?? { currency: str(currency), count: 0, subtotal: [], tax: [], total: [] };
    found.count += num(count);
    found.subtotal.push(fromScaled(str(sub), num(pSub)));
    found.tax.push(fromScaled(str(tax), num(pTax)));
    found.total.push(fromScaled(str(total), num(pTotal)));
    sums.set(str(currency), found);
  }
  return [...sums.values()];
}

/** What is owed by due date and by customer, and the oldest owed. */
async function owing(rows: Query, dialect: Dialect, q: OwingQuestion): Promise<OwingSums | null> {
  const w = invoiceWhere(dialect, { receivable: true, ...(q.customerId !== undefined ? { customerId: q.customerId } : {}) });
  if (q.dueBefore !== undefined) w.add('due_date < ?', q.dueBefore);
  const mixed = await firstCell(
    rows,
    `SELECT COUNT(*) FROM (SELECT currency FROM invoices${w} GROUP BY currency HAVING COUNT(balance_units) < COUNT(*) OR COUNT(DISTINCT balance_places) > 1)`,
    w.args,
  );
  if (num(mixed) > 0) return null;
  return exactly(async () => {
    const byDueDate = (
      await rows(
        `SELECT currency, due_date, COUNT(*), CAST(SUM(balance_units) AS TEXT), MAX(balance_places) FROM invoices${w} GROUP BY currency, due_date`,
        w.args,
      )
    ).map(([currency, due, count, units, places]) => ({
      currency: str(currency),
      due_date: str(due),
      count: num(count),
      balance: fromScaled(str(units), num(places)),
    }));
    // Within a currency every balance has the same places, so the whole units compare as the amounts do.
    const topCustomers = (
      await rows(
        `SELECT g.currency, g.customer_id, i.customer_name, g.n, g.units, g.places, g.oldest FROM (
           SELECT currency, customer_id, COUNT(*) AS n, CAST(SUM(balance_units) AS TEXT) AS units, MAX(balance_places) AS places,
                  MIN(due_date) AS oldest, MIN(id) AS first_id,
                  ROW_NUMBER() OVER (PARTITION BY currency ORDER BY SUM(balance_units) DESC, customer_id) AS place
           FROM invoices${w} GROUP BY currency, customer_id) g
         JOIN invoices i ON i.id = g.first_id WHERE g.place <= ? ORDER BY g.currency, g.place`,
        [...w.args, q.top],
      )
    ).map(([currency, customerId, name, count, units, places, oldest]) => ({
      currency: str(currency),
      customer_id: num(customerId),
      customer_name: str(name),
      count: num(count),
      balance: fromScaled(str(units), num(places)),
      oldest_due: str(oldest),
    }));
    const oldest = await oldestOwed(rows, w, q);
    return { byDueDate, topCustomers, oldest };
  });
}

export function sqliteSums(rows: Query, dialect: Dialect): Sums {
  return {
    lineSums: (filter) => lineSums(rows, dialect, filter),
    invoiceSums: (filter) => invoiceSums(rows, dialect, filter),
    owing: (q) => owing(rows, dialect, q),
  };
}
