// The records of one business in one mode, as the sandbox keeps them. Times are epoch milliseconds;
// money and quantities are decimal strings. Views (views.ts) turn these into the spec's output shapes.

export type Mode = 'live' | 'test';

export interface Address {
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
}

export interface Customer {
  id: number;
  code: string;
  name: string;
  email: string | null;
  phone: string | null;
  tax_number: string | null;
  address: Address;
  status: 'active' | 'archived';
  notes: string | null;
  createdMs: number;
  updatedMs: number;
}

export interface InvoiceLine {
  description: string;
  quantity: string;
  unit_price: string;
  tax_amount: string;
  line_total: string;
  product_id: number | null;
  tax_category_id: number;
}

export const INVOICE_STATUSES = ['draft', 'approved', 'issued', 'sent', 'viewed', 'part_paid', 'paid', 'overdue', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export interface Invoice {
  id: number;
  number: string;
  status: InvoiceStatus;
  customerId: number;
  issue_date: string;
  due_date: string;
  currency: string;
  subtotal: string;
  tax_total: string;
  total: string;
  balance: string;
  sales_channel: string | null;
  portalToken: string;
  notes: string | null;
  terms: string | null;
  items: InvoiceLine[];
  createdMs: number;
  updatedMs: number;
}

export const QUOTE_STATUSES = ['draft', 'sent', 'viewed', 'accepted', 'declined', 'expired', 'converted', 'cancelled'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

export interface Quote {
  id: number;
  number: string;
  status: QuoteStatus;
  customerId: number;
  issue_date: string;
  valid_until: string;
  total: string;
  acceptedMs: number | null;
  createdMs: number;
  updatedMs: number;
}

export const PAYMENT_METHODS = ['cash', 'card', 'bank_transfer', 'cheque', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface Allocation {
  invoice_id: number;
  amount: string;
}

export interface Payment {
  id: number;
  customerId: number;
  amount: string;
  currency: string;
  payment_date: string;
  method: PaymentMethod;
  reference: string;
  allocations: Allocation[];
  createdMs: number;
  /** Payments never change; kept equal to createdMs so `updated_since` treats every record alike. */
  updatedMs: number;
}

export interface BranchStock {
  branch_id: number;
  on_hand: string;
}

export interface Stock {
  reorder_level: string;
  branches: BranchStock[];
}

export interface Product {
  id: number;
  name: string;
  sku: string | null;
  barcode: string | null;
  type: 'product' | 'service';
  description: string;
  default_price: string;
  is_active: boolean;
  track_stock: boolean;
  taxCategoryId: number;
  /** null for services and untracked products. */
  stock: Stock | null;
  createdMs: number;
  updatedMs: number;
}

export interface TaxCategory {
  id: number;
  name: string;
  /** A decimal string such as "0.15". */
  rate: string;
}

export interface Branch {
  id: number;
  name: string;
}

export interface BusinessProfile {
  id: number;
  name: string;
  currency: string;
  timeZone: string;
  branches: Branch[];
  taxCategories: TaxCategory[];
  defaultTaxCategoryId: number;
}

/** The record collections of one business in one mode, each in ascending id order. */
export interface BooksData {
  customers: Customer[];
  products: Product[];
  invoices: Invoice[];
  quotes: Quote[];
  payments: Payment[];
  /** The next sequence numbers of the business's own codes (CUS-, INV-, QUO-). */
  nextCustomerCode: number;
  nextInvoiceNumber: number;
  nextQuoteNumber: number;
}

/** Global id sequences shared by every business, as in one database: ids never collide across businesses. */
export interface IdSequences {
  customer: number;
  invoice: number;
  quote: number;
  payment: number;
  product: number;
}

export function newIdSequences(): IdSequences {
  return { customer: 0, invoice: 0, quote: 0, payment: 0, product: 0 };
}

export function takeId(ids: IdSequences, kind: keyof IdSequences): number {
  ids[kind] += 1;
  return ids[kind];
}

export function formatCode(prefix: 'CUS' | 'INV' | 'QUO', n: number): string {
  return `${prefix}-${String(n).padStart(5, '0')}`;
}
