// Small records as the service sends them, for store tests that write a few by hand.
import type { Rec } from '../../src/store/record.js';

export const sampleCustomer = (id: number, name = `Customer ${id}`, updatedAt = '2026-01-01T00:00:00+13:00'): Rec => ({
  id,
  code: `C${id}`,
  name,
  email: null,
  status: 'active',
  updated_at: updatedAt,
});

/** A sent invoice of 34.50 NZD, all of it owed. */
export const sampleInvoice = (id: number, customerId: number, stamp: string): Rec => ({
  id,
  number: `INV-${id}`,
  status: 'sent',
  customer: { id: customerId, name: `Customer ${customerId}` },
  issue_date: '2026-03-01',
  due_date: '2026-03-31',
  currency: 'NZD',
  subtotal: '30.00',
  tax_total: '4.50',
  total: '34.50',
  balance: '34.50',
  updated_at: stamp,
});

export const sampleLine = (productId: number | null, total: string) => ({
  description: `Item ${productId}`,
  quantity: '1.000000',
  unit_price: total,
  tax_amount: '1.50',
  line_total: total,
  product_id: productId,
});
