// What report_sales and report_received share: the totals per currency as a table, and each currency's
// groups as bars (over time for periods, sideways for names), with what the groups leave out said in words.
import { barChart, type Series } from '../chart.js';
import { el, section, table } from '../dom.js';
import { leftOutNote } from './coverage.js';

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
  /** Groups past the limit, counted in the totals but not shown. */
  leftOut: number;
  /** The limit the tool was asked for, if the host sent the arguments. */
  limit: unknown;
  /** Said after each group chart's title when its figures are partial, e.g. "partial: the lines of 6 of 232 invoices". */
  partial?: string;
  /** The bars' figure, then the table's others. */
  figure: (groups: G[]) => Series;
  more: (groups: G[]) => Series[];
}

export interface Head {
  title: string;
  /** What the report says when it has no totals. */
  none: string;
  caption: string;
  head: string[];
  rows: string[][];
  /** Said after the title, before any figure: what the figures leave out. */
  notice?: HTMLElement | null;
}

/** The report's heading, any notice, and its totals per currency (or what it says when there are none). */
export function totalsHead(root: HTMLElement, h: Head): void {
  root.append(
    el('h1', {}, h.title),
    h.notice ?? '',
    h.rows.length === 0 ? el('p', {}, h.none) : table(h.caption, h.head, h.rows, (i) => i > 0),
  );
}

/** The grouping the tool was asked for; a host that sent no arguments still gets the groups drawn. */
export const groupByOf = (args: Record<string, unknown>, groups: unknown[]): string | undefined =>
  typeof args.group_by === 'string' ? args.group_by : groups.length > 0 ? 'group' : undefined;

export function groupCharts<G extends Group>(root: HTMLElement, g: Grouping<G>): (() => void)[] {
  if (!g.groupBy) return [];
  const groupBy = g.groupBy;
  const note = leftOutNote(g.groups.length, g.leftOut, groupBy, g.limit, PERIODS.has(groupBy));
  if (note) root.append(note);
  const currencies = [...new Set(g.groups.map((x) => x.currency))];
  return currencies.map((currency) => {
    const groups = g.groups.filter((x) => x.currency === currency);
    const title = `${g.noun} in ${currency} by ${groupBy}${g.partial ? ` (${g.partial})` : ''}`;
    const part = section(title);
    if (g.partial) part.classList.add('partial');
    root.append(part);
    return barChart(part, {
      title,
      by: groupBy.charAt(0).toUpperCase() + groupBy.slice(1),
      labels: groups.map((x) => x.label),
      series: [g.figure(groups)],
      more: g.more(groups),
      sideways: !PERIODS.has(groupBy),
    });
  });
}
