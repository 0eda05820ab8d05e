// What report_sales and report_received share: the totals per currency as a table, and each currency's
// groups as bars (over time for periods, sideways for names).
import { barChart, type Series } from '../chart.js';
import { el, section, table } from '../dom.js';

/** Groups by period are drawn over time (upright bars, in order); others, named, lie sideways. */
const PERIODS = new Set(['day', 'week', 'month', 'quarter']);

export interface Group {
  currency: string;
  label: string;
}

export interface Grouping<G extends Group> {
  noun: string;
  groupBy: string | undefined;
  groups: G[];
  /** The bars' figure, then the table's others. */
  figure: (groups: G[]) => Series;
  more: (groups: G[]) => Series[];
}

/** The report's heading and its totals per currency (or what it says when there are none). */
export function totalsHead(root: HTMLElement, title: string, none: string, head: string[], rows: string[][]): void {
  root.append(el('h1', {}, title), rows.length === 0 ? el('p', {}, none) : table('Totals per currency', head, rows, (i) => i > 0));
}

/** The grouping the tool was asked for; a host that sent no arguments still gets the groups drawn. */
export const groupByOf = (args: Record<string, unknown>, groups: unknown[]): string | undefined =>
  typeof args.group_by === 'string' ? args.group_by : groups.length > 0 ? 'group' : undefined;

export function groupCharts<G extends Group>(root: HTMLElement, g: Grouping<G>): (() => void)[] {
  if (!g.groupBy) return [];
  const currencies = [...new Set(g.groups.map((x) => x.currency))];
  const groupBy = g.groupBy;
  return currencies.map((currency) => {
    const groups = g.groups.filter((x) => x.currency === currency);
    const part = section(`${g.noun} in ${currency} by ${groupBy}`);
    root.append(part);
    return barChart(part, {
      title: `${g.noun} in ${currency} by ${groupBy}`,
      by: groupBy.charAt(0).toUpperCase() + groupBy.slice(1),
      labels: groups.map((x) => x.label),
      series: [g.figure(groups)],
      more: g.more(groups),
      sideways: !PERIODS.has(groupBy),
    });
  });
}
