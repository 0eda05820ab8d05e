// zod schemas of every record, envelope and input of the Invoicing Service (spec "Resources and their
// fields"). Lenient by design: unknown fields pass through, statuses and kinds are plain strings, `meta`
// tolerates null, and money stays a decimal string. The MCP tools reuse these as output schemas.
import { z } from 'zod';

const decimal = () => z.string().describe('decimal string, exact (never a float)');
const date = () => z.string().describe('date YYYY-MM-DD');
const timestamp = () => z.string().describe('ISO 8601 timestamp with offset');
const id = () => z.number().int();
const nullableText = () => z.string().nullable();

export const RefSchema = z.looseObject({ id: id(), name: z.string() });

export const AddressSchema = z.looseObject({
  line1: nullableText().optional(),
  line2: nullableText().optional(),
  city: nullableText().optional(),
  region: nullableText().optional(),
  postal_code: nullableText().optional(),
});

export const CustomerSchema = z.looseObject({
  id: id(),
  code: z.string(),
  name: z.string(),
  email: nullableText(),
  phone: nullableText(),
  tax_number: nullableText(),
  address: AddressSchema.nullable(),
  status: z.string().describe('active or archived (other values possible)'),
  created_at: timestamp(),
  updated_at: timestamp(),
});

export const InvoiceLineSchema = z.looseObject({
  description: z.string(),
  quantity: decimal(),
  unit_price: decimal(),
  tax_amount: decimal(),
  line_total: decimal(),
  product_id: id().nullable(),
});

const invoiceFields = {
  id: id(),
  number: z.string(),
  status: z.string().describe('draft, approved, issued, sent, viewed, part_paid, paid, overdue, void (other values possible)'),
  customer: RefSchema,
  issue_date: date(),
  due_date: date(),
  currency: z.string(),
  subtotal: decimal(),
  tax_total: decimal(),
  total: decimal(),
  balance: decimal().describe('amount still owed'),
  sales_channel: nullableText(),
  portal_url: z.string(),
  created_at: timestamp(),
  updated_at: timestamp(),
};

/** An invoice as a list item (no lines). */
export const InvoiceSummarySchema = z.looseObject(invoiceFields);
/** A single invoice and the create output: with `items`. */
export const InvoiceSchema = z.looseObject({ ...invoiceFields, items: z.array(InvoiceLineSchema) });

export const QuoteSchema = z.looseObject({
  id: id(),
  number: z.string(),
  status: z.string().describe('draft, sent, viewed, accepted, declined, expired, converted, cancelled (other values possible)'),
  customer: RefSchema,
  issue_date: date(),
  valid_until: date(),
  total: decimal(),
  accepted_at: timestamp().nullable(),
  updated_at: timestamp(),
});

export const AllocationSchema = z.looseObject({
  invoice_id: id(),
  invoice_number: z.string(),
  amount: decimal(),
});

export const PaymentSchema = z.looseObject({
  id: id(),
  customer: RefSchema,
  amount: decimal(),
  currency: z.string(),
  payment_date: date(),
  method: z.string(),
  reference: z.string().nullable(),
  allocations: z.array(AllocationSchema),
  created_at: timestamp(),
});

export const StockBranchSchema = z.looseObject({ branch_id: id(), branch: z.string(), on_hand: decimal() });

export const StockSchema = z.looseObject({
  on_hand: decimal(),
  reorder_level: decimal(),
  low: z.boolean(),
  branches: z.array(StockBranchSchema),
});

export const ProductSchema = z.looseObject({
  id: id(),
  name: z.string(),
  sku: nullableText(),
  barcode: nullableText(),
  type: z.string().describe('product or service (other values possible)'),
  description: nullableText(),
  default_price: decimal(),
  is_active: z.boolean(),
  track_stock: z.boolean(),
  stock: StockSchema.nullable(),
  updated_at: timestamp(),
});

/** The single-product answer, whose shape the spec leaves "not shown": read leniently, only `id` required. */
export const ProductDetailSchema = ProductSchema.partial().extend({ id: id() });

// ---- envelopes ----

const pageNumber = () => z.number().int().nullable().optional();

export const LinksSchema = z.looseObject({
  first: z.string().nullable().optional(),
  last: z.string().nullable().optional(),
  prev: z.string().nullable().optional(),
  next: z.string().nullable().optional(),
});

export const MetaSchema = z.looseObject({
  current_page: pageNumber(),
  from: pageNumber(),
  last_page: pageNumber(),
  per_page: pageNumber(),
  to: pageNumber(),
  total: pageNumber(),
});

/** `{data: [...], links, meta}` of a list endpoint. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    links: LinksSchema.nullable().optional(),
    meta: MetaSchema.nullable().optional(),
  });
}

/** `{data: record}` of a single-record endpoint. */
export function singleSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({ data: item });
}

export const CustomerPageSchema = pageSchema(CustomerSchema);
export const InvoicePageSchema = pageSchema(InvoiceSummarySchema);
export const QuotePageSchema = pageSchema(QuoteSchema);
export const PaymentPageSchema = pageSchema(PaymentSchema);
export const ProductPageSchema = pageSchema(ProductSchema);

// ---- sessions ----

export const SessionGrantSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().positive().optional(),
  expires_at: z.string().optional(),
  mode: z.string().optional(),
  key_id: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  business: RefSchema.partial().loose().optional(),
});

export const PingSchema = z.looseObject({
  ok: z.boolean(),
  mode: z.string().optional(),
  business: RefSchema.partial().loose().optional(),
  session_expires_at: z.string().optional(),
});

export const ErrorBodySchema = z.looseObject({
  message: z.string().optional(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
  required_scope: z.string().optional(),
});

// ---- inputs (documented constraints; the service remains the judge, the client does not enforce them) ----

const pageParams = {
  page: z.number().int().min(1).optional().describe('page number, from 1'),
  per_page: z.number().int().min(1).max(100).optional().describe('records per page, 1 to 100 (default 25)'),
  updated_since: z.string().optional().describe('ISO 8601 date or timestamp; only records created or changed at or after it'),
};

export const ListQuerySchema = z.object(pageParams);
export const CustomerListQuerySchema = z.object({
  ...pageParams,
  status: z.string().optional().describe('active or archived'),
  search: z.string().optional().describe("part of the customer's name"),
});
export const InvoiceListQuerySchema = z.object({
  ...pageParams,
  status: z.string().optional().describe('an invoice status'),
  customer_id: z.number().int().optional(),
  sales_channel: z.string().optional().describe('pos for till sales'),
});
export const QuoteListQuerySchema = z.object({ ...pageParams, status: z.string().optional() });
export const PaymentListQuerySchema = z.object({ ...pageParams, customer_id: z.number().int().optional() });
export const ProductListQuerySchema = z.object({
  ...pageParams,
  active: z.boolean().optional(),
  barcode: z.string().optional(),
  sku: z.string().optional(),
  track_stock: z.boolean().optional(),
  low_stock: z.boolean().optional(),
});

export const CustomerCreateSchema = z.object({
  name: z.string().min(1),
  email: z.string().optional(),
  phone: z.string().optional(),
  tax_number: z.string().optional(),
  address: z
    .object({
      line1: z.string().optional(),
      line2: z.string().optional(),
      city: z.string().optional(),
      region: z.string().optional(),
      postal_code: z.string().optional(),
    })
    .optional(),
  notes: z.string().max(2000).optional(),
});

export const InvoiceLineInputSchema = z.object({
  quantity: z.union([z.number(), z.string()]).describe('greater than 0; a number or a decimal string'),
  product_id: z.number().int().optional(),
  description: z.string().optional(),
  unit_price: z.string().optional().describe('decimal string'),
  tax_category_id: z.number().int().optional(),
});

export const InvoiceCreateSchema = z.object({
  customer_id: z.number().int(),
  issue_date: z.string().optional(),
  due_date: z.string().optional(),
  items: z.array(InvoiceLineInputSchema).min(1).max(200),
  notes: z.string().optional(),
  terms: z.string().optional(),
});

// ---- types ----

export type Ref = z.infer<typeof RefSchema>;
export type Address = z.infer<typeof AddressSchema>;
export type Customer = z.infer<typeof CustomerSchema>;
export type InvoiceLine = z.infer<typeof InvoiceLineSchema>;
export type InvoiceSummary = z.infer<typeof InvoiceSummarySchema>;
export type Invoice = z.infer<typeof InvoiceSchema>;
export type Quote = z.infer<typeof QuoteSchema>;
export type Allocation = z.infer<typeof AllocationSchema>;
export type Payment = z.infer<typeof PaymentSchema>;
export type StockBranch = z.infer<typeof StockBranchSchema>;
export type Stock = z.infer<typeof StockSchema>;
export type Product = z.infer<typeof ProductSchema>;
export type ProductDetail = z.infer<typeof ProductDetailSchema>;
export type Links = z.infer<typeof LinksSchema>;
export type Meta = z.infer<typeof MetaSchema>;
export interface Page<T> {
  data: T[];
  links?: Links | null | undefined;
  meta?: Meta | null | undefined;
  [extra: string]: unknown;
}
export type SessionGrant = z.infer<typeof SessionGrantSchema>;
export type Ping = z.infer<typeof PingSchema>;
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
export type ListQuery = z.input<typeof ListQuerySchema>;
export type CustomerListQuery = z.input<typeof CustomerListQuerySchema>;
export type InvoiceListQuery = z.input<typeof InvoiceListQuerySchema>;
export type QuoteListQuery = z.input<typeof QuoteListQuerySchema>;
export type PaymentListQuery = z.input<typeof PaymentListQuerySchema>;
export type ProductListQuery = z.input<typeof ProductListQuerySchema>;
export type CustomerCreate = z.input<typeof CustomerCreateSchema>;
export type InvoiceLineInput = z.input<typeof InvoiceLineInputSchema>;
export type InvoiceCreate = z.input<typeof InvoiceCreateSchema>;

/** The resources the client reads; also the kinds of the cache. */
export const RESOURCE_KINDS = ['customers', 'invoices', 'quotes', 'payments', 'products'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
