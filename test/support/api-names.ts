// The Invoicing Service's own names for what each tool takes, as its documentation gives them (see
// docs/service-contract.md):
// the path id, the query parameters of a list, the fields of a create body (and its Idempotency-Key).
const PAGING = ['page', 'per_page', 'updated_since'];
const CREATE = ['idempotency_key'];

export const API_NAMES: Record<string, readonly string[]> = {
  check_connection: [],
  list_customers: [...PAGING, 'status', 'search'],
  get_customer: ['id'],
  create_customer: [...CREATE, 'name', 'email', 'phone', 'tax_number', 'address', 'notes'],
  list_invoices: [...PAGING, 'status', 'customer_id', 'sales_channel'],
  get_invoice: ['id'],
  create_draft_invoice: [...CREATE, 'customer_id', 'issue_date', 'due_date', 'items', 'notes', 'terms'],
  list_quotes: [...PAGING, 'status'],
  get_quote: ['id'],
  list_payments: [...PAGING, 'customer_id'],
  get_payment: ['id'],
  list_products: [...PAGING, 'active', 'barcode', 'sku', 'track_stock', 'low_stock'],
  get_product: ['id'],
  // The answer tools ask questions the API has no words for; where one of its words fits, it is used.
  find_records: ['search', 'limit'],
  report_owed: ['customer_id', 'currency', 'over_days', 'min_balance', 'top', 'limit', 'offset'],
  report_sales: [
    'range',
    'days',
    'from',
    'to',
    'group_by',
    'customer_id',
    'product_id',
    'currency',
    'rank_by',
    'with_draft_and_void',
    'min_total',
    'max_total',
    'limit',
  ],
  report_received: ['range', 'days', 'from', 'to', 'group_by', 'customer_id', 'limit', 'offset'],
  report_customer: ['customer_id', 'search'],
  report_quotes: ['expiring_days', 'customer_id', 'limit', 'offset'],
  report_low_stock: ['branch'],
};

/** Fields the API requires on a create: the tool must require them too. */
export const API_REQUIRED: Record<string, readonly string[]> = {
  create_customer: ['name'],
  create_draft_invoice: ['customer_id', 'items'],
};

/**
 * Input properties that go without a description: their name is the API's, their type or enum says the
 * rest, and a description would cost every conversation tokens for nothing. Anything else needs one, and
 * so does any id, any formatted string (a pattern or format) and any union, whatever its name.
 */
export const PLAIN_PROPERTIES = new Set([
  'page',
  'per_page',
  'status',
  'name',
  'email',
  'tax_number',
  'address',
  'line1',
  'line2',
  'city',
  'region',
  'postal_code',
  'notes',
  'terms',
  'items',
  'description',
  'barcode',
  'sku',
  'track_stock',
  'low_stock',
  // The answer tools' enumerations, whose values say it all (this_month, last_quarter; day, week, customer).
  'range',
  'group_by',
  // A row limit and a switch whose names, types and defaults say it all.
  'limit',
  'with_draft_and_void',
]);
