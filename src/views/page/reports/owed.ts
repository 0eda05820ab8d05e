// report_owed: per currency, what is owed by age (bars per band) and the customers who owe the most.
import { counted } from '../../../core/counted.js';
import { barChart } from '../chart.js';
import { el, section } from '../dom.js';
import { withCurrency } from '../figures.js';

const BANDS = [
  ['not_due', 'Not yet due'],
  ['1_30', '1-30 days'],
  ['31_60', '31-60 days'],
  ['61_90', '61-90 days'],
  ['over_90', 'Over 90 days'],
] as const;

interface Counted {
  count: number;
  balance: string;
}

interface Owed {
  currencies: (Counted & { currency: string; past_due: Counted; aged: Record<(typeof BANDS)[number][0], Counted> })[];
  customers: (Counted & { customer_id: number; customer_name: string; currency: string; oldest_due: string })[];
}

export function owedCharts(root: HTMLElement, data: Owed): (() => void)[] {
  root.append(el('h1', {}, 'What is owed'));
  if (data.currencies.length === 0) root.append(el('p', {}, 'Nothing is owed.'));
  const undo: (() => void)[] = [];
  for (const c of data.currencies) {
    const part = section(
      `${withCurrency(c.currency, c.balance)} owed`,
      el('p', {}, `${counted(c.count, 'invoice')}; past due ${withCurrency(c.currency, c.past_due.balance)} on ${c.past_due.count}.`),
    );
    root.append(part);
    undo.push(
      barChart(part, {
        title: `Owed in ${c.currency} by age`,
        by: 'Age',
        labels: BANDS.map(([, words]) => words),
        series: [{ label: `Balance (${c.currency})`, values: BANDS.map(([band]) => c.aged[band].balance) }],
        more: [{ label: 'Invoices', values: BANDS.map(([band]) => String(c.aged[band].count)) }],
      }),
    );
    const top = data.customers.filter((k) => k.currency === c.currency);
    if (top.length === 0) continue;
    undo.push(
      barChart(part, {
        title: `Customers who owe the most in ${c.currency}`,
        by: 'Customer',
        labels: top.map((k) => k.customer_name),
        series: [{ label: `Balance (${c.currency})`, values: top.map((k) => k.balance) }],
        more: [
          { label: 'Invoices', values: top.map((k) => String(k.count)) },
          { label: 'Oldest due', values: top.map((k) => k.oldest_due) },
        ],
        sideways: true,
      }),
    );
  }
  return undo;
}
