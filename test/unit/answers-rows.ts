// Hand-written mirror rows for the answer modules' unit tests: small enough to add up by eye.
import type { CustomerRow, InvoiceRow, LineRow, PaymentRow, ProductRow, QuoteRow } from '../../src/store/types.js';

export const TODAY = '2026-11-23';

export function invoice(over: Partial<InvoiceRow> & { id: number }): InvoiceRow {
  return {
    number: `INV-${String(over.id).padStart(5, '0')}`,
    status: 'sent',
    customer_id: 1,
    customer_name: 'Tui Logistics',
    issue_date: '2026-11-01',
    due_date: '2026-11-15',
    currency: 'NZD',
    subtotal: '100.00',
    tax_total: '15.00',
    total: '115.00',
    balance: '115.00',
    sales_channel: null,
    updated_at: '2026-11-01T09:00:00+13:00',
    ...over,
  };
}

export function line(over: Partial<LineRow> & { invoice_id: number }): LineRow {
  return {
    position: 0,
    description: 'Cedar bracket',
    quantity: '1.000000',
    unit_price: '10.00',
    tax_amount: '1.50',
    line_total: '10.00',
    product_id: 7,
    ...over,
  };
}

export function payment(over: Partial<PaymentRow> & { id: number }): PaymentRow {
  return {
    customer_id: 1,
    customer_name: 'Tui Logistics',
    amount: '50.00',
    currency: 'NZD',
    payment_date: '2026-11-10',
    method: 'card',
    reference: '',
    allocations: [],
    ...over,
  };
}

export function quote(over: Partial<QuoteRow> & { id: number }): QuoteRow {
  return {
    number: `QUO-${String(over.id).padStart(5, '0')}`,
    status: 'sent',
    customer_id: 1,
    customer_name: 'Tui Logistics',
    issue_date: '2026-11-01',
    valid_until: '2026-12-01',
    total: '200.00',
    currency: null,
    accepted_at: null,
    updated_at: '2026-11-01T09:00:00+13:00',
    ...over,
  };
}

export function customer(over: Partial<CustomerRow> & { id: number }): CustomerRow {
  return {
    code: `CUS-${String(over.id).padStart(5, '0')}`,
    name: `Customer ${over.id}`,
    email: null,
    status: 'active',
    updated_at: '2026-01-01T00:00:00+13:00',
    ...over,
  };
}

export function product(over: Partial<ProductRow> & { id: number }): ProductRow {
  return {
    name: `Product ${over.id}`,
    sku: null,
    barcode: null,
    type: 'product',
    default_price: '10.00',
    is_active: true,
    track_stock: true,
    stock: null,
    updated_at: '2026-01-01T00:00:00+13:00',
    ...over,
  };
}
