// The one registry of tools (the answers' tools each in their room of src/answers/): it drives the tools list, --read-only, --toolsets, scope filtering, the
// README table and the convention tests.
import { reportCustomer } from '../src/answers/customer/report-customer.js';
import { findRecords } from '../src/answers/find/find-records.js';
import { reportLowStock } from '../src/answers/low-stock/report-low-stock.js';
import { reportOwed } from '../src/answers/owed/report-owed.js';
import { reportQuotes } from '../src/answers/quotes/report-quotes.js';
import { reportReceived } from '../src/answers/received/report-received.js';
import { reportSales } from '../src/answers/sales/report-sales.js';
import { checkConnection } from './connection.js';
import { createCustomer, getCustomer, listCustomers } from './customers.js';
import type { ToolDefinition } from './define.js';
import { createDraftInvoice, getInvoice, listInvoices } from './invoices.js';
import { getPayment, listPayments } from './payments.js';
import { getProduct, listProducts } from './products.js';
import { getQuote, listQuotes } from './quotes.js';

export const TOOLS: readonly ToolDefinition[] = [
  checkConnection,
  findRecords,
  reportOwed,
  reportSales,
  reportReceived,
  reportCustomer,
  reportQuotes,
  reportLowStock,
  listCustomers,
  getCustomer,
  createCustomer,
  listInvoices,
  getInvoice,
  createDraftInvoice,
  listQuotes,
  getQuote,
  listPayments,
  getPayment,
  listProducts,
  getProduct,
] as unknown as readonly ToolDefinition[];

export { TOOLSETS, type ToolDefinition, type Toolset } from './define.js';
