// What the end-to-end tests expect of the server: the tool set, a call of every tool with what its
// structured result must hold on the sandbox's seeded books, and a draft to create.
import { expect } from 'vitest';
export const ALL_TOOLS = [
  'check_connection',
  'list_customers',
  'get_customer',
  'create_customer',
  'list_invoices',
  'get_invoice',
  'create_draft_invoice',
  'list_quotes',
  'get_quote',
  'list_payments',
  'get_payment',
  'list_products',
  'get_product',
  'find_records',
  'report_owed',
  'report_sales',
  'report_received',
  'report_customer',
  'report_quotes',
  'report_low_stock',
] as const;

const page = { data: expect.any(Array), meta: expect.objectContaining({ total: expect.any(Number) }) };

export const TOOL_CALLS: [name: string, args: Record<string, unknown>, expected: Record<string, unknown>][] = [
  ['check_connection', {}, { ok: true, mode: 'test', scopes: expect.arrayContaining(['invoices.write']) }],
  ['list_customers', { per_page: 2 }, page],
  ['get_customer', { id: 1 }, { id: 1, name: 'Rangitoto Builders Co' }],
  ['create_customer', { name: 'E2E Test Customer', email: 'e2e@example.com' }, { name: 'E2E Test Customer' }],
  ['list_invoices', { status: 'overdue', per_page: 2 }, page],
  ['get_invoice', { id: 1 }, { id: 1, items: expect.any(Array), total: expect.stringMatching(/^\d+\.\d{2}$/) }],
  [
    'create_draft_invoice',
    { customer_id: 1, items: [{ description: 'Site visit', unit_price: '80.00', quantity: 1 }] },
    { status: 'draft' },
  ],
  ['list_quotes', { per_page: 2 }, page],
  ['get_quote', { id: 1 }, { id: 1 }],
  ['list_payments', { per_page: 2 }, page],
  ['get_payment', { id: 1 }, { id: 1, amount: expect.stringMatching(/^\d+\.\d{2}$/) }],
  ['list_products', { low_stock: true }, page],
  ['get_product', { id: 1 }, { id: 1 }],
  [
    'find_records',
    { search: ['Rangitoto'] },
    { results: [expect.objectContaining({ term: 'Rangitoto', customers: expect.arrayContaining([expect.objectContaining({ id: 1 })]) })] },
  ],
  [
    'report_owed',
    {},
    {
      currencies: expect.arrayContaining([expect.objectContaining({ currency: 'NZD' })]),
      today: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    },
  ],
  ['report_sales', { range: 'last_month' }, { totals: expect.arrayContaining([expect.objectContaining({ currency: 'NZD' })]) }],
  ['report_received', { days: 30, group_by: 'method' }, { totals: expect.any(Array), groups: expect.any(Array) }],
  ['report_customer', { customer_id: 1 }, { customer: expect.objectContaining({ id: 1 }) }],
  ['report_quotes', { expiring_days: 14 }, { open: expect.any(Array), expiring: expect.any(Array) }],
  ['report_low_stock', {}, { items: expect.any(Array), branches: expect.any(Array) }],
];

/** A draft of two lines: 2 x 25.00 before tax. */
export const DRAFT = {
  customer_id: 1,
  items: [
    { description: 'Labour, hours', unit_price: '20.00', quantity: 2 },
    { description: 'Call-out', unit_price: '10.00', quantity: 1 },
  ],
};

/** What an answer about an invoice must repeat exactly of the invoice as the raw API gave it. */
export const invoiceFigures = (invoice: any) => ({
  id: invoice.id,
  number: invoice.number,
  total: invoice.total,
  balance: invoice.balance,
});
