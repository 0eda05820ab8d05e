// The one registry of tools: it drives the tools list, --read-only, --toolsets, scope filtering, the
// README table and the convention tests.
import { checkConnection } from './connection.js';
import { createCustomer, findRecords, getCustomer, listCustomers, reportCustomer } from './customers.js';
import type { ToolDefinition } from './define.js';
import { createDraftInvoice, getInvoice, listInvoices, reportOwed, reportSales } from './invoices.js';
import { getPayment, listPayments, reportReceived } from './payments.js';
import { getProduct, listProducts, reportLowStock } from './products.js';
import { getQuote, listQuotes, reportQuotes } from './quotes.js';

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
