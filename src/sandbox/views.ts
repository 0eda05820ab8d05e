// The spec's output shapes, rendered from stored records.

import { Decimal, toQuantity } from './amounts.js';
import type { BusinessProfile, Customer, Invoice, Payment, Product, Quote } from './books.js';
import type { Books } from './collection.js';
import { formatTimestamp } from './time.js';

export interface ViewContext {
  profile: BusinessProfile;
  books: Books;
  baseUrl: string;
}

const ts = (ctx: ViewContext, ms: number): string => formatTimestamp(ms, ctx.profile.timeZone);

function customerRef(ctx: ViewContext, id: number): { id: number; name: string } {
  return { id, name: ctx.books.customers.get(id)?.name ?? '' };
}

export function customerView(ctx: ViewContext, c: Customer): Record<string, unknown> {
  return {
    id: c.id,
    code: c.code,
    name: c.name,
    email: c.email,
    phone: c.phone,
    tax_number: c.tax_number,
    address: { ...c.address },
    status: c.status,
    created_at: ts(ctx, c.createdMs),
    updated_at: ts(ctx, c.updatedMs),
  };
}

export function invoiceListView(ctx: ViewContext, inv: Invoice): Record<string, unknown> {
  return {
    id: inv.id,
    number: inv.number,
    status: inv.status,
    customer: customerRef(ctx, inv.customerId),
    issue_date: inv.issue_date,
    due_date: inv.due_date,
    currency: inv.currency,
    subtotal: inv.subtotal,
    tax_total: inv.tax_total,
    total: inv.total,
    balance: inv.balance,
    sales_channel: inv.sales_channel,
    portal_url: `${ctx.baseUrl}/portal/invoices/${inv.portalToken}`,
    created_at: ts(ctx, inv.createdMs),
    updated_at: ts(ctx, inv.updatedMs),
  };
}

export function invoiceView(ctx: ViewContext, inv: Invoice): Record<string, unknown> {
  return {
    ...invoiceListView(ctx, inv),
    items: inv.items.map((line) => ({
      description: line.description,
      quantity: line.quantity,
      unit_price: line.unit_price,
      tax_amount: line.tax_amount,
      line_total: line.line_total,
      product_id: line.product_id,
    })),
  };
}

export function quoteView(ctx: ViewContext, q: Quote): Record<string, unknown> {
  return {
    id: q.id,
    number: q.number,
    status: q.status,
    customer: customerRef(ctx, q.customerId),
    issue_date: q.issue_date,
    valid_until: q.valid_until,
    total: q.total,
    accepted_at: q.acceptedMs === null ? null : ts(ctx, q.acceptedMs),
    updated_at: ts(ctx, q.updatedMs),
  };
}

export function paymentView(ctx: ViewContext, p: Payment): Record<string, unknown> {
  return {
    id: p.id,
    customer: customerRef(ctx, p.customerId),
    amount: p.amount,
    currency: p.currency,
    payment_date: p.payment_date,
    method: p.method,
    reference: p.reference,
    allocations: p.allocations.map((a) => ({
      invoice_id: a.invoice_id,
      invoice_number: ctx.books.invoices.get(a.invoice_id)?.number ?? '',
      amount: a.amount,
    })),
    created_at: ts(ctx, p.createdMs),
  };
}

export function stockOnHand(p: Product): Decimal {
  return Decimal.sum((p.stock?.branches ?? []).map((b) => b.on_hand));
}

export function isLowStock(p: Product): boolean {
  return p.track_stock && p.stock !== null && !stockOnHand(p).gt(p.stock.reorder_level);
}

export function productView(ctx: ViewContext, p: Product): Record<string, unknown> {
  const branchName = (id: number): string => ctx.profile.branches.find((b) => b.id === id)?.name ?? '';
  return {
    id: p.id,
    name: p.name,
    sku: p.sku,
    barcode: p.barcode,
    type: p.type,
    description: p.description,
    default_price: p.default_price,
    is_active: p.is_active,
    track_stock: p.track_stock,
    stock:
      p.stock === null
        ? null
        : {
            on_hand: toQuantity(stockOnHand(p)),
            reorder_level: toQuantity(p.stock.reorder_level),
            low: isLowStock(p),
            branches: p.stock.branches.map((b) => ({
              branch_id: b.branch_id,
              branch: branchName(b.branch_id),
              on_hand: toQuantity(b.on_hand),
            })),
          },
    updated_at: ts(ctx, p.updatedMs),
  };
}
