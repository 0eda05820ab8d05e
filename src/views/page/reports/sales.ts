// report_sales: the totals per currency, and the groups asked for as bars of their totals. Product figures
// come from invoice lines: when the mirror holds the lines of only some invoices, a notice before any figure
// says so, the totals say they cover every invoice, and each product chart is titled partial.
import { counted } from '../../../core/counted.js';
import { isPartial, type LinesCoverage, type LinesPending, partialNotice, partOf } from './coverage.js';
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
  groups_left_out: number;
  lines?: LinesCoverage;
  lines_pending?: LinesPending;
}

/**
 * Whether the totals come from every invoice of the range. Not for one product's sales (its totals are its
 * lines' own), nor when they count fewer invoices than the range holds (a host that sent no arguments).
 */
const totalsFromInvoices = (data: Sales, args: Record<string, unknown>, lines: LinesCoverage): boolean =>
  args.product_id === undefined && data.totals.reduce((n, t) => n + t.count, 0) === lines.invoices;

function totalsCaption(data: Sales, whole: boolean): string {
  if (!data.lines) return 'Totals per currency';
  if (whole) return `Totals per currency, all ${counted(data.lines.invoices, 'invoice')}`;
  return isPartial(data.lines) ? `Totals per currency (${partOf(data.lines)})` : 'Totals per currency';
}

export function salesCharts(root: HTMLElement, data: Sales, args: Record<string, unknown>): (() => void)[] {
  const lines = data.lines;
  const whole = lines !== undefined && totalsFromInvoices(data, args, lines);
  const partial = isPartial(lines) ? lines : undefined;
  totalsHead(root, {
    title: `Sales issued ${data.from} to ${data.to}`,
    none: 'No invoices in this range.',
    caption: totalsCaption(data, whole),
    head: ['Currency', 'Invoices', 'Subtotal', 'Tax', 'Total'],
    rows: data.totals.map((t) => [t.currency, String(t.count), t.subtotal, t.tax, t.total]),
    notice: partial ? partialNotice(partial, data.lines_pending, whole) : null,
  });
  const byProduct = data.groups.some((g) => g.quantity !== undefined);
  return groupCharts(root, {
    noun: 'Sales',
    groupBy: groupByOf(args, data.groups),
    groups: data.groups,
    leftOut: data.groups_left_out,
    limit: args.limit,
    ...(partial ? { partial: partOf(partial) } : {}),
    figure: (groups) => ({ label: 'Total', values: groups.map((g) => g.total) }),
    more: (groups) => [
      { label: 'Invoices', values: groups.map((g) => String(g.count)) },
      { label: 'Subtotal', values: groups.map((g) => g.subtotal) },
      ...(byProduct ? [{ label: 'Quantity', values: groups.map((g) => g.quantity ?? '') }] : []),
    ],
  });
}
