// Whether a mirror's invoice lines are the service's, line for line: each invoice's detail read raw from the
// API, compared field by field with the lines the store holds for it, in order.
import type { Session } from '../../contract/sandbox-http.js';
import { get } from '../../contract/sandbox-http.js';

const LINE_FIELDS = ['description', 'quantity', 'unit_price', 'tax_amount', 'line_total', 'product_id'] as const;

interface StoredLine {
  invoice_id: number;
  position: number;
  [field: string]: unknown;
}

/** The invoices (as `invoice <id>`) whose stored lines differ from the API's items. */
export async function invoicesWithWrongLines(session: Session, invoices: { id: number }[], stored: StoredLine[]): Promise<string[]> {
  const wrong: string[] = [];
  const details = await Promise.all(invoices.map((invoice) => get(session, `/api/v1/invoices/${invoice.id}`)));
  for (const [n, invoice] of invoices.entries()) {
    const items = details[n]?.body.data.items as Record<string, unknown>[];
    const mine = stored.filter((l) => l.invoice_id === invoice.id).sort((a, b) => a.position - b.position);
    const theirs = items.map((item) => Object.fromEntries(LINE_FIELDS.map((f) => [f, item[f] ?? null])));
    const ours = mine.map((line) => Object.fromEntries(LINE_FIELDS.map((f) => [f, line[f] ?? null])));
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) wrong.push(`invoice ${invoice.id}`);
  }
  return wrong;
}
