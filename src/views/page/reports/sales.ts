// report_sales: the totals per currency, and the groups asked for as bars of their totals.
import { groupByOf, groupCharts, totalsHead } from './grouped.js';

interface Figures {
  currency: string;
  count: number;
  subtotal: string;
  tax: string;
  total: string;
}

interface Sales {
  from: string;
  to: string;
  totals: Figures[];
  groups: (Figures & { label: string; quantity?: string })[];
}

export function salesCharts(root: HTMLElement, data: Sales, args: Record<string, unknown>): (() => void)[] {
  totalsHead(
    root,
    `Sales issued ${data.from} to ${data.to}`,
    'No invoices in this range.',
    ['Currency', 'Invoices', 'Subtotal', 'Tax', 'Total'],
    data.totals.map((t) => [t.currency, String(t.count), t.subtotal, t.tax, t.total]),
  );
  const byProduct = data.groups.some((g) => g.quantity !== undefined);
  return groupCharts(root, {
    noun: 'Sales',
    groupBy: groupByOf(args, data.groups),
    groups: data.groups,
    figure: (groups) => ({ label: 'Total', values: groups.map((g) => g.total) }),
    more: (groups) => [
      { label: 'Invoices', values: groups.map((g) => String(g.count)) },
      { label: 'Subtotal', values: groups.map((g) => g.subtotal) },
      ...(byProduct ? [{ label: 'Quantity', values: groups.map((g) => g.quantity ?? '') }] : []),
    ],
  });
}
