// Sales by product on Postgres, in one statement over invoice_products (each invoice's lines already summed
// per product, beside the invoice's fields a question filters on): the range's rows added per product and
// currency in `numeric` (exact at any size), ranked per currency as the question ranks them, and only the
// products it shows handed back, named, with the count of the others. No join with the invoices, no distinct
// count, no second query for the invoices with lines or the products' names: a question that shows 50 of
// some 1,400 groups reads 50 rows.
import { type Cells, num, str } from '../cells.js';
import type { Query } from '../engine.js';
import type { InvoiceFilter, LineSums, ProductLineSums, ProductTop } from '../types.js';
import { type Dialect, invoiceWhere } from '../where.js';

/** Every product, when the caller names no top (the largest limit a statement takes). */
const EVERY: ProductTop = { limit: 2 ** 31 - 1, rankBy: 'total' };

/** The filters whose fields invoice_products keeps (INVOICE_PRODUCT_FIELDS); any other needs the invoices joined. */
const KEPT_BESIDE: readonly string[] = ['issuedFrom', 'issuedTo', 'statuses', 'excludeStatuses', 'customerId', 'currency'];
const besideTheSums = (f: InvoiceFilter): boolean => Object.entries(f).every(([k, v]) => v === undefined || KEPT_BESIDE.includes(k));

// One row of invoice_products is one invoice with lines of the product: their count is the invoices. The
// invoices with lines are those with a line at position 0 (each has one, in one product's row). A group's
// description is its first line's (invoice, then position): the first of the product's lines on its first
// invoice. Ties rank by product id, lines without a product last, as rankedPerCurrency orders them.
const sql = (from: string, where: string, figure: string): string => `
  WITH g AS (
    SELECT s.product_id, s.currency, SUM(s.total_n) AS total, SUM(s.tax_n) AS tax, SUM(s.quantity_n) AS quantity,
           COUNT(*) AS invoices, MIN(s.invoice_id) AS first_invoice, SUM(s.unsummable) AS unsummable,
           COUNT(*) FILTER (WHERE s.first_position = 0) AS with_lines
    FROM ${from}${where}
    GROUP BY s.product_id, s.currency),
  ranked AS (
    SELECT g.*, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ${figure} DESC, product_id) AS place,
           COUNT(*) OVER (PARTITION BY currency) AS groups, SUM(unsummable) OVER () AS unsummable_all,
           SUM(with_lines) OVER () AS with_lines_all
    FROM g)
  SELECT r.product_id, r.currency, r.total::text, r.tax::text, r.quantity::text, r.invoices, r.groups, r.unsummable_all,
         r.with_lines_all,
         (SELECT d.description FROM lines d WHERE d.invoice_id = r.first_invoice AND d.product_id IS NOT DISTINCT FROM r.product_id
          ORDER BY d.position LIMIT 1),
         (SELECT ARRAY[p.name] FROM products p WHERE p.id = r.product_id)
  FROM ranked r WHERE r.place <= ?`;

export async function postgresLineSums(rows: Query, dialect: Dialect, filter: InvoiceFilter, top = EVERY): Promise<LineSums | null> {
  const beside = besideTheSums(filter);
  const w = invoiceWhere(dialect, filter, beside ? 's.' : 'i.');
  const from = beside ? 'invoice_products s' : 'invoice_products s JOIN invoices i ON i.id = s.invoice_id';
  const figure = top.rankBy === 'subtotal' ? 'total' : 'total + tax';
  const found = await rows(sql(from, String(w), figure), [...w.args, top.limit]);
  if (found.some((r) => num(r[7]) > 0)) return null;
  const products: ProductLineSums[] = [];
  const names = new Map<number, string>();
  const groups = new Map<string, number>();
  for (const [productId, currency, total, tax, quantity, invoices, inCurrency, , , description, name] of found) {
    const id = productId === null ? null : num(productId);
    products.push({
      product_id: id,
      currency: str(currency),
      invoices: num(invoices),
      line_total: [str(total)],
      tax_amount: [str(tax)],
      quantity: [str(quantity)],
      description: str(description),
    });
    // [name] when the product is held (its name may be null, read as productNames reads it), null when not.
    if (id !== null && Array.isArray(name)) names.set(id, str((name as Cells)[0]));
    groups.set(str(currency), num(inCurrency));
  }
  const all = [...groups.values()].reduce((n, g) => n + g, 0);
  return { products, withLines: num(found[0]?.[8] ?? 0), leftOut: all - products.length, names };
}
