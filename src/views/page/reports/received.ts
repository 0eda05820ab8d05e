// report_received: money in per currency, and the groups asked for (period, method, customer) as bars.
import { groupByOf, groupCharts, totalsHead } from './grouped.js';

interface Figures {
  currency: string;
  count: number;
  amount: string;
}

interface Received {
  from: string;
  to: string;
  totals: (Figures & { allocated: string })[];
  groups: (Figures & { label: string })[];
  groups_left_out: number;
}

export function receivedCharts(root: HTMLElement, data: Received, args: Record<string, unknown>): (() => void)[] {
  totalsHead(root, {
    title: `Money received ${data.from} to ${data.to}`,
    none: 'No payments in this range.',
    caption: 'Totals per currency',
    head: ['Currency', 'Payments', 'Amount', 'Allocated to invoices'],
    rows: data.totals.map((t) => [t.currency, String(t.count), t.amount, t.allocated]),
  });
  return groupCharts(root, {
    noun: 'Received',
    groupBy: groupByOf(args, data.groups),
    groups: data.groups,
    leftOut: data.groups_left_out,
    limit: args.limit,
    figure: (groups) => ({ label: 'Amount', values: groups.map((g) => g.amount) }),
    more: (groups) => [{ label: 'Payments', values: groups.map((g) => String(g.count)) }],
  });
}
