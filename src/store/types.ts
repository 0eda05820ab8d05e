// The books mirror as its readers see it: the kinds it holds, the rows its queries return, and the freshness
// contract. The mirror (store, sync, budget) implements it; the answer tools read only through it.
// Amounts are decimal strings exactly as the service sent them; dates `YYYY-MM-DD`; stamps ISO 8601.

import type { ALLOCATIONS, CUSTOMERS, INVOICES, ItemRow, KindRow, LINES, PAYMENTS, PRODUCTS, QUOTES, Shown } from './tables.js';

export const MIRRORED_KINDS = ['customers', 'invoices', 'quotes', 'payments', 'products'] as const;
export type MirroredKind = (typeof MIRRORED_KINDS)[number];

// Each row's fields come from its table's definition (tables.ts), where its columns are written once.
export type CustomerRow = KindRow<typeof CUSTOMERS>;
export type InvoiceRow = KindRow<typeof INVOICES>;
/** A line of an invoice: `position` is its place in the invoice's `items`, from 0. */
export type LineRow = ItemRow<typeof LINES>;
export type QuoteRow = KindRow<typeof QUOTES>;
export type AllocationRow = Shown<(typeof ALLOCATIONS)['columns']>;
export type PaymentRow = KindRow<typeof PAYMENTS> & { allocations: AllocationRow[] };

export interface BranchStockRow {
  branch_id: number;
  branch: string;
  on_hand: string;
}

export type ProductRow = KindRow<typeof PRODUCTS> & {
  /** Null for services and untracked products. */
  stock: { on_hand: string; reorder_level: string; low: boolean; branches: BranchStockRow[] } | null;
};

export interface InvoiceFilter {
  /** Issue date on or after (inclusive). */
  issuedFrom?: string;
  /** Issue date on or before (inclusive). */
  issuedTo?: string;
  /** Only these statuses. */
  statuses?: readonly string[];
  /** Leave these statuses out. */
  excludeStatuses?: readonly string[];
  /** Status not draft or void, and balance above zero. */
  receivable?: boolean;
  customerId?: number;
  /** Only invoices in this currency (ISO 4217 code). */
  currency?: string;
  /** The invoice numbered so (letter case aside). */
  number?: string;
}

export interface PaymentFilter {
  /** Payment date on or after (inclusive). */
  from?: string;
  /** Payment date on or before (inclusive). */
  to?: string;
  customerId?: number;
}

export interface QuoteFilter {
  statuses?: readonly string[];
  customerId?: number;
  /** The quote numbered so (letter case aside). */
  number?: string;
}

/**
 * A narrowing for a search, never tighter than the search itself: rows whose identifier (customers: code,
 * email, name; products: SKU, barcode) is `equals`, letter case and spaces aside, or whose name holds each
 * of `words` anywhere. The caller scores what comes back; a row left out here could not have matched.
 */
export interface TextMatch {
  equals: string;
  words: readonly string[];
}

export interface CustomerFilter {
  match?: TextMatch;
}

export interface ProductFilter {
  ids?: readonly number[];
  match?: TextMatch;
}

/** The lines of one product (null: lines without one) in one currency, summed exactly. */
export interface ProductLineSums {
  product_id: number | null;
  currency: string;
  /** Invoices with a line of it. */
  invoices: number;
  /** Exact decimal strings that add up to the lines' line_total (one per number of decimal places written). */
  line_total: string[];
  tax_amount: string[];
  quantity: string[];
  /** The description of its first line (invoice, then position order). */
  description: string;
}

export interface LineSums {
  products: ProductLineSums[];
  /** Invoices with lines stored. */
  withLines: number;
  /** Asked for the top products only (ProductTop): the groups past them, left out by the store. */
  leftOut?: number;
  /** The names of the products given, when the store looked them up with the sums. */
  names?: Map<number, string>;
}

/**
 * The products a question shows: the first `limit` of each currency, ranked by the figure named (the lines'
 * total, or their total with tax), ties by product id, lines without a product last.
 */
export interface ProductTop {
  limit: number;
  rankBy: 'total' | 'subtotal';
}

/** Invoices of one currency summed by the store: exact decimal strings that add up to each amount. */
export interface CurrencySums {
  currency: string;
  count: number;
  subtotal: string[];
  tax: string[];
  total: string[];
}

/** Receivable invoices summed by the store (see MirrorReader.owing). Balances are exact decimal strings. */
export interface OwingSums {
  /** Per currency and due date. */
  byDueDate: { currency: string; due_date: string; count: number; balance: string }[];
  /** Per currency, the customers owing the most (ties to the lower id), at most `top` of each currency. */
  topCustomers: { currency: string; customer_id: number; customer_name: string; count: number; balance: string; oldest_due: string }[];
  /** The oldest due first (then by id), at most `limit`. */
  oldest: InvoiceRow[];
}

export interface OwingQuestion {
  customerId?: number | undefined;
  /** Only invoices due before this day. */
  dueBefore?: string | undefined;
  top: number;
  limit: number;
  /** Oldest invoices to pass over before the `limit` listed (the next page). */
  offset?: number | undefined;
}

/** The read side of the store. Every method answers from the local copy and makes no service call. */
export interface MirrorReader {
  customers(filter?: CustomerFilter): Promise<CustomerRow[]>;
  customer(id: number): Promise<CustomerRow | null>;
  invoices(filter?: InvoiceFilter): Promise<InvoiceRow[]>;
  /** The stored lines of the invoices the filter picks (those with lines stored), in invoice then position order. */
  lines(filter: InvoiceFilter & { ids?: readonly number[] }): Promise<LineRow[]>;
  quotes(filter?: QuoteFilter): Promise<QuoteRow[]>;
  payments(filter?: PaymentFilter): Promise<PaymentRow[]>;
  products(filter?: ProductFilter): Promise<ProductRow[]>;
  /**
   * The lines of the invoices the filter picks, summed per product and currency by the store. Null when an
   * amount is not a plain decimal it can add exactly: then sum `lines()` instead. With `top`, a store may give
   * only those products (ranked, named, and the rest counted in `leftOut`), or every one.
   */
  lineSums(filter: InvoiceFilter, top?: ProductTop): Promise<LineSums | null>;
  /**
   * Receivable invoices (not draft or void, balance above zero) summed by the store. Null when a balance is
   * not a plain decimal, or a currency's balances are written with different places: then sum the rows.
   */
  owing(q: OwingQuestion): Promise<OwingSums | null>;
  /** The invoices the filter picks, summed per currency by the store; null when an amount is not plain. */
  invoiceSums(filter: InvoiceFilter): Promise<CurrencySums[] | null>;
  /** The names of these products (those held). */
  productNames(ids: readonly number[]): Promise<Map<number, string>>;
  /** The record as the service last sent it (unknown fields kept), or null. */
  raw(kind: MirroredKind, id: number): Promise<Record<string, unknown> | null>;
}

export interface LinesCoverage {
  /** Invoices whose stored lines match their current header. */
  withLines: number;
  invoices: number;
}

export interface Freshness {
  /** The service's clock at the newest read of the kinds asked for (the oldest of them), ISO 8601. */
  asOf: string;
  /** The business's today at that moment, `YYYY-MM-DD` (its time zone, as the service's stamps carry it). */
  today: string;
  /** Why the mirror could not be brought up to date (its store is full): the answer is as of `asOf`. */
  warning?: string;
  /**
   * Lines the answer asked for (`lines` of ensureFresh) that were too many to fetch while it waited: queued
   * first in the background, and about how long they will take there (null until the service tells its limit).
   */
  linesPending?: { invoices: number; seconds: number | null };
}

export interface FreshProgress {
  /** Records read so far in this wait. */
  progress: number;
  /** Records expected, when the service has said (meta.total). */
  total?: number;
  message: string;
  /** About how long the rest of the wait takes at the key's pace (ms), when it can be told. */
  expectedMs?: number;
}

export interface EnsureFreshOptions {
  onProgress?: (update: FreshProgress) => void;
  signal?: AbortSignal;
  /**
   * The invoices whose lines the answer sums, from the business's today (`invoices` among the kinds): those not
   * stored are fetched in the tool calls' lane when they fit about half a minute at the key's pace, else queued
   * first in the background.
   */
  lines?: (today: string) => InvoiceFilter;
  /**
   * Kinds the answer reads for names only (labels, not figures): read when the mirror has never read them, not
   * again for each answer (the background rounds and webhooks keep them), and left out of the as-of.
   */
  labels?: readonly MirroredKind[];
  /**
   * Read every missing line of `lines` while waiting, however long that takes at the key's pace (a task's
   * answer: never partial). Progress then says how many and about how long.
   */
  wholeLines?: boolean;
}

/** A task (MCP Tasks) as the store keeps it: see tasks.ts. */
export interface StoredTask {
  /** Random and unguessable. */
  id: string;
  /** Who may read or cancel it: the grant, tenant or client it was made for. */
  owner: string;
  tool: string;
  args: Record<string, unknown>;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  /** What it is doing now (while working). */
  message: string | null;
  /** The tool's result once it ended (completed, or failed with a tool error). */
  result: Record<string, unknown> | null;
  createdMs: number;
  updatedMs: number;
  /** Forgotten after this. */
  expiresMs: number;
  /** The process running it. */
  holder: string | null;
  /** When its holder last said it was still at work. */
  beatMs: number;
}

export interface TaskTable {
  /** Writes a new task (and forgets those expired). */
  create(task: StoredTask): Promise<void>;
  /** The task, unless unknown or expired. */
  get(id: string, nowMs: number): Promise<StoredTask | null>;
  /** This owner's working tasks, unexpired (their holders may be gone). */
  working(owner: string, nowMs: number): Promise<StoredTask[]>;
  /** The holder is still at work (with what it does now, when it changed); the task's status, null when not its holder or expired. */
  beat(id: string, holder: string, message: string | null, nowMs: number): Promise<StoredTask['status'] | null>;
  /** Ends a working task its holder runs; false when it was cancelled or taken over meanwhile. */
  finish(
    id: string,
    holder: string,
    status: 'completed' | 'failed',
    result: Record<string, unknown> | null,
    nowMs: number,
  ): Promise<boolean>;
  /** Cancels a working task of this owner; false when not working (or not theirs, or expired). */
  cancel(id: string, owner: string, nowMs: number): Promise<boolean>;
  /**
   * Takes over a working task whose holder has not beaten since `staleBeforeMs`, or is still `gone` (a holder
   * known to have stopped, whatever its last beat); true for the one process that wins.
   */
  claim(id: string, holder: string, from: { staleBeforeMs: number; gone: string | null }, nowMs: number): Promise<boolean>;
}

/** What an answer tool holds: fresh data on demand, then reads. */
export interface Books {
  /**
   * Brings these kinds up to date with one `updated_since` call each (none for a kind synced in the last
   * few seconds or just updated by a webhook); a cold kind is read in full first, reporting progress.
   */
  ensureFresh(kinds: readonly MirroredKind[], options?: EnsureFreshOptions): Promise<Freshness>;
  /** Those of these kinds whose first read has not finished: what they hold is not the books yet. No service call. */
  neverRead(kinds: readonly MirroredKind[]): Promise<MirroredKind[]>;
  readonly read: MirrorReader;
  /** `work`'s reads as one consistent state of the books (one read transaction), whatever is written meanwhile. */
  snapshot<T>(work: (read: MirrorReader) => Promise<T>): Promise<T>;
  /** Tasks of long answers, kept in the store with the books (MCP Tasks). */
  readonly tasks: TaskTable;
}
