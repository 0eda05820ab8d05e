// The one registry of tools (the answers' tools each in their room of src/answers/): it drives the tools list, --read-only, --toolsets, scope filtering, the
// README table and the convention tests.

import { checkConnection } from '../../tools/connection.js';
import { createCustomer, getCustomer, listCustomers } from '../../tools/customers.js';
import type { ToolDefinition } from '../../tools/define.js';
import { createDraftInvoice, getInvoice, listInvoices } from '../../tools/invoices.js';
import { getPayment, listPayments } from '../../tools/payments.js';
import { getProduct, listProducts } from '../../tools/products.js';
import { getQuote, listQuotes } from '../../tools/quotes.js';
import { reportCustomer } from '../answers/customer/report-customer.js';
import { findRecords } from '../answers/find/find-records.js';
import { reportLowStock } from '../answers/low-stock/report-low-stock.js';
import { reportOwed } from '../answers/owed/report-owed.js';
import { reportQuotes } from '../answers/quotes/report-quotes.js';
import { reportReceived } from '../answers/received/report-received.js';
import { reportSales } from '../answers/sales/report-sales.js';

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

export { TOOLSETS, type ToolDefinition, type Toolset } from '../../tools/define.js';
