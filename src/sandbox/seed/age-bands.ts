// Unpaid invoices in every age band whatever the start day: not yet due, 1-30, 31-60, 61-90 and over 90
// days past due. The seeded statuses nearly always cover them; where a band is empty, the latest settled
// account invoice due in it is left unpaid instead (before payments are made, so balances follow).
import type { Invoice, InvoiceStatus } from '../books.js';

const UNPAID: ReadonlySet<InvoiceStatus> = new Set(['issued', 'sent', 'viewed', 'overdue', 'part_paid']);
const SETTLED: ReadonlySet<InvoiceStatus> = new Set(['paid', 'draft', 'approved']);

/** Days past due: 0 or less when not yet due. */
export function daysPastDue(dueDate: string, today: string): number {
  return (Date.parse(`${today}T00:00:00Z`) - Date.parse(`${dueDate}T00:00:00Z`)) / 86_400_000;
}

export const AGE_BANDS: readonly { name: string; from: number; to: number }[] = [
  { name: 'not yet due', from: -Infinity, to: 0 },
  { name: '1-30', from: 1, to: 30 },
  { name: '31-60', from: 31, to: 60 },
  { name: '61-90', from: 61, to: 90 },
  { name: 'over 90', from: 91, to: Infinity },
];

export function ensureAgeBands(invoices: Invoice[], today: string): void {
  for (const band of AGE_BANDS) {
    const inBand = invoices.filter((inv) => {
      const late = daysPastDue(inv.due_date, today);
      return late >= band.from && late <= band.to;
    });
    if (inBand.some((inv) => UNPAID.has(inv.status))) continue;
    const candidate = inBand.filter((inv) => inv.sales_channel !== 'pos' && SETTLED.has(inv.status)).at(-1);
    if (candidate) candidate.status = band.to <= 0 ? 'sent' : 'overdue';
  }
}
