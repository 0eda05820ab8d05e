// The one registry of tools: it drives the tools list, --read-only, --toolsets, scope filtering, the
// README table and the convention tests.
import { checkConnection } from './connection.js';
import { createCustomer, getCustomer, listCustomers } from './customers.js';
import type { ToolDefinition } from './define.js';
import { createDraftInvoice, getInvoice, listInvoices } from './invoices.js';
import { getPayment, listPayments } from './payments.js';
import { getProduct, listProducts } from './products.js';
import { getQuote, listQuotes } from './quotes.js';

export const TOOLS: readonly ToolDefinition[] = [
  checkConnection,
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

export { TOOLSETS, type Toolset, type ToolDefinition } from './define.js';
