// Builds the records that the two creates make, with exact line arithmetic (docs/service-contract.md, "Records").

import { Decimal, toAmount, toPrice, toQuantity } from './amounts.js';
import type { BusinessProfile, Customer, Invoice, InvoiceLine, TaxCategory } from './books.js';
import { formatCode } from './books.js';
import { randomToken } from './secrets.js';
import type { CustomerInput } from './validate-customer.js';
import type { InvoiceInput, LineInput } from './validate-invoice.js';

export function buildCustomer(input: CustomerInput, id: number, codeNumber: number, nowMs: number): Customer {
  return {
    id,
    code: formatCode('CUS', codeNumber),
    name: input.name,
    email: input.email,
    phone: input.phone,
    tax_number: input.tax_number,
    address: input.address,
    status: 'active',
    notes: input.notes,
    createdMs: nowMs,
    updatedMs: nowMs,
  };
}

function taxCategoryOf(line: LineInput, profile: BusinessProfile): TaxCategory {
  const byId = (id: number): TaxCategory | undefined => profile.taxCategories.find((t) => t.id === id);
  const chosen = line.taxCategory ?? (line.product ? byId(line.product.taxCategoryId) : undefined);
  const fallback = byId(profile.defaultTaxCategoryId);
  if (!chosen && !fallback) throw new Error(`business ${profile.id} has no default tax category`);
  return (chosen ?? fallback) as TaxCategory;
}

export function buildLine(line: LineInput, profile: BusinessProfile): InvoiceLine {
  const category = taxCategoryOf(line, profile);
  const unitPrice = line.unit_price ?? line.product?.default_price ?? '0';
  const lineTotal = toAmount(Decimal.parse(line.quantity).times(unitPrice));
  return {
    description: line.description ?? line.product?.description ?? line.product?.name ?? '',
    quantity: toQuantity(line.quantity),
    unit_price: toPrice(unitPrice),
    tax_amount: toAmount(Decimal.parse(lineTotal).times(category.rate)),
    line_total: lineTotal,
    product_id: line.product?.id ?? null,
    tax_category_id: category.id,
  };
}

export function buildInvoice(input: InvoiceInput, profile: BusinessProfile, id: number, numberSeq: number, nowMs: number): Invoice {
  const items = input.items.map((line) => buildLine(line, profile));
  const subtotal = toAmount(Decimal.sum(items.map((l) => l.line_total)));
  const taxTotal = toAmount(Decimal.sum(items.map((l) => l.tax_amount)));
  const total = toAmount(Decimal.parse(subtotal).plus(taxTotal));
  return {
    id,
    number: formatCode('INV', numberSeq),
    status: 'draft',
    customerId: input.customerId,
    issue_date: input.issue_date,
    due_date: input.due_date,
    currency: profile.currency,
    subtotal,
    tax_total: taxTotal,
    total,
    balance: total,
    sales_channel: null,
    portalToken: randomToken(24),
    notes: input.notes,
    terms: input.terms,
    items,
    createdMs: nowMs,
    updatedMs: nowMs,
  };
}
