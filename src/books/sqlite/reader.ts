// The mirror's queries (MirrorReader) over SQLite: filters in SQL, amounts returned as the stored strings.
import type { Client, InValue, Row } from '@libsql/client';
import { COLUMNS } from '../rows.js';
import type {
  AllocationRow,
  CustomerRow,
  InvoiceFilter,
  InvoiceRow,
  LineRow,
  MirroredKind,
  MirrorReader,
  PaymentFilter,
  PaymentRow,
  ProductRow,
  QuoteFilter,
  QuoteRow,
} from '../types.js';

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number => Number(v);

class Where {
  readonly parts: string[] = [];
  readonly args: InValue[] = [];
  add(sql: string, ...args: InValue[]): void {
    this.parts.push(sql);
    this.args.push(...args);
  }
  in(column: string, values: readonly (string | number)[] | undefined, negate = false): void {
    if (!values) return;
    if (values.length === 0) return void (negate ? undefined : this.parts.push('0'));
    this.add(`${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`, ...values);
  }
  toString(): string {
    return this.parts.length > 0 ? ` WHERE ${this.parts.join(' AND ')}` : '';
  }
}

const customerRow = (r: Row): CustomerRow => ({
  id: num(r['id']),
  code: str(r['code']),
  name: str(r['name']),
  email: strOrNull(r['email']),
  status: str(r['status']),
  updated_at: str(r['stamp']),
});

const invoiceRow = (r: Row): InvoiceRow => ({
  id: num(r['id']),
  number: str(r['number']),
  status: str(r['status']),
  customer_id: num(r['customer_id']),
  customer_name: str(r['customer_name']),
  issue_date: str(r['issue_date']),
  due_date: str(r['due_date']),
  currency: str(r['currency']),
  subtotal: str(r['subtotal']),
  tax_total: str(r['tax_total']),
  total: str(r['total']),
  balance: str(r['balance']),
  sales_channel: strOrNull(r['sales_channel']),
  updated_at: str(r['stamp']),
});

const quoteRow = (r: Row): QuoteRow => ({
  id: num(r['id']),
  number: str(r['number']),
  status: str(r['status']),
  customer_id: num(r['customer_id']),
  customer_name: str(r['customer_name']),
  issue_date: str(r['issue_date']),
  valid_until: str(r['valid_until']),
  total: str(r['total']),
  currency: strOrNull(r['currency']),
  accepted_at: strOrNull(r['accepted_at']),
  updated_at: str(r['stamp']),
});

function productRow(r: Row): ProductRow {
  const raw = JSON.parse(str(r['raw'])) as Record<string, unknown>;
  const stock = raw['stock'] as Record<string, unknown> | null | undefined;
  const branches = Array.isArray(stock?.['branches']) ? (stock['branches'] as Record<string, unknown>[]) : [];
  return {
    id: num(r['id']),
    name: str(r['name']),
    sku: strOrNull(r['sku']),
    barcode: strOrNull(r['barcode']),
    type: str(r['type']),
    default_price: str(r['default_price']),
    is_active: r['is_active'] === 1,
    track_stock: r['track_stock'] === 1,
    stock: stock
      ? {
          on_hand: str(stock['on_hand']),
          reorder_level: str(stock['reorder_level']),
          low: stock['low'] === true,
          branches: branches.map((b) => ({ branch_id: num(b['branch_id']), branch: str(b['branch']), on_hand: str(b['on_hand']) })),
        }
      : null,
    updated_at: str(r['stamp']),
  };
}

/** The typed columns of a kind: what its rows are made of, without the raw JSON (read only where needed). */
const typed = (kind: Exclude<MirroredKind, 'products'>): string => ['id', ...COLUMNS[kind], 'stamp'].join(', ');

export function sqliteReader(db: Client): MirrorReader {
  const rows = async (sql: string, args: InValue[] = []): Promise<Row[]> => (await db.execute({ sql, args })).rows;
  return {
    customers: async () => (await rows(`SELECT ${typed('customers')} FROM customers ORDER BY id`)).map(customerRow),
    async customer(id) {
      const [r] = await rows(`SELECT ${typed('customers')} FROM customers WHERE id = ?`, [id]);
      return r ? customerRow(r) : null;
    },
    async invoices(filter: InvoiceFilter = {}) {
      const w = new Where();
      if (filter.issuedFrom) w.add('issue_date >= ?', filter.issuedFrom);
      if (filter.issuedTo) w.add('issue_date <= ?', filter.issuedTo);
      w.in('status', filter.statuses);
      w.in('status', filter.excludeStatuses, true);
      // Balances are decimal strings: "above zero" is any digit other than 0 and no minus sign.
      if (filter.receivable) w.add("status NOT IN ('draft', 'void') AND balance NOT LIKE '-%' AND balance GLOB '*[1-9]*'");
      if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
      return (await rows(`SELECT ${typed('invoices')} FROM invoices${w} ORDER BY id`, w.args)).map(invoiceRow);
    },
    async lines(invoiceIds) {
      const found: Row[] = [];
      const sorted = [...invoiceIds].sort((a, b) => a - b);
      for (let i = 0; i < sorted.length; i += 500) {
        const w = new Where();
        w.in('invoice_id', sorted.slice(i, i + 500));
        found.push(...(await rows(`SELECT invoice_id, position, description, quantity, unit_price, tax_amount, line_total, product_id FROM lines${w} ORDER BY invoice_id, position`, w.args)));
      }
      return found.map(
        (r): LineRow => ({
          invoice_id: num(r['invoice_id']),
          position: num(r['position']),
          description: str(r['description']),
          quantity: str(r['quantity']),
          unit_price: str(r['unit_price']),
          tax_amount: str(r['tax_amount']),
          line_total: str(r['line_total']),
          product_id: r['product_id'] === null ? null : num(r['product_id']),
        }),
      );
    },
    async quotes(filter: QuoteFilter = {}) {
      const w = new Where();
      w.in('status', filter.statuses);
      if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
      return (await rows(`SELECT ${typed('quotes')} FROM quotes${w} ORDER BY id`, w.args)).map(quoteRow);
    },
    async payments(filter: PaymentFilter = {}) {
      const w = new Where();
      if (filter.from) w.add('payment_date >= ?', filter.from);
      if (filter.to) w.add('payment_date <= ?', filter.to);
      if (filter.customerId !== undefined) w.add('customer_id = ?', filter.customerId);
      const found = await rows(`SELECT ${typed('payments')} FROM payments${w} ORDER BY id`, w.args);
      const allocations = new Map<number, AllocationRow[]>();
      const ids = found.map((r) => num(r['id']));
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = new Where();
        chunk.in('payment_id', ids.slice(i, i + 500));
        for (const a of await rows(`SELECT * FROM allocations${chunk} ORDER BY payment_id, position`, chunk.args)) {
          const list = allocations.get(num(a['payment_id'])) ?? [];
          list.push({ invoice_id: num(a['invoice_id']), invoice_number: str(a['invoice_number']), amount: str(a['amount']) });
          allocations.set(num(a['payment_id']), list);
        }
      }
      return found.map(
        (r): PaymentRow => ({
          id: num(r['id']),
          customer_id: num(r['customer_id']),
          customer_name: str(r['customer_name']),
          amount: str(r['amount']),
          currency: str(r['currency']),
          payment_date: str(r['payment_date']),
          method: str(r['method']),
          reference: str(r['reference']),
          allocations: allocations.get(num(r['id'])) ?? [],
        }),
      );
    },
    products: async () => (await rows('SELECT * FROM products ORDER BY id')).map(productRow),
    async raw(kind: MirroredKind, id: number) {
      const [r] = await rows(`SELECT raw FROM ${kind} WHERE id = ?`, [id]);
      return r ? (JSON.parse(str(r['raw'])) as Record<string, unknown>) : null;
    },
  };
}
