// What a view's tables must hold, worked out by the test from the tool result's own strings: the rows of
// each table by its caption, in the order the result gives them.
export interface TableText {
  caption: string;
  rows: string[][];
  foot: string[][];
}

const short = (quantity: string): string => (quantity.includes('.') ? quantity.replace(/\.?0+$/, '') : quantity);

const BANDS: [string, string][] = [
  ['not_due', 'Not yet due'],
  ['1_30', '1-30 days'],
  ['31_60', '31-60 days'],
  ['61_90', '61-90 days'],
  ['over_90', 'Over 90 days'],
];

export function draftTables(inv: any): TableText[] {
  const foot = [
    ['Subtotal', inv.subtotal],
    ['Tax', inv.tax_total],
    [`Total ${inv.currency}`, inv.total],
    ...(inv.balance === inv.total ? [] : [['Balance', inv.balance]]),
  ];
  const rows = inv.items.map((l: any) => [l.description, short(l.quantity), l.unit_price, l.tax_amount, l.line_total]);
  return [{ caption: `Lines (${inv.currency})`, rows, foot }];
}

export function owedTables(a: any): TableText[] {
  return a.currencies.flatMap((c: any) => {
    const top = a.customers.filter((k: any) => k.currency === c.currency);
    return [
      {
        caption: `Owed in ${c.currency} by age`,
        rows: BANDS.map(([band, words]) => [words, c.aged[band].balance, String(c.aged[band].count)]),
        foot: [],
      },
      ...(top.length === 0
        ? []
        : [
            {
              caption: `Customers who owe the most in ${c.currency}`,
              rows: top.map((k: any) => [k.customer_name, k.balance, String(k.count), k.oldest_due]),
              foot: [],
            },
          ]),
    ];
  });
}

const currenciesOf = (groups: any[]): string[] => [...new Set(groups.map((g) => g.currency as string))];

/** "1 invoice", "2 invoices": the test's own, not the code's. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** What a product result's captions say of its lines: the totals cover every invoice, the products those with lines. */
function linesCaptions(a: any): { totals: string; groups: string } {
  if (!a.lines) return { totals: 'Totals per currency', groups: '' };
  const { with_lines: withLines, invoices } = a.lines;
  return {
    totals: `Totals per currency, all ${plural(invoices, 'invoice')}`,
    groups: withLines === invoices ? '' : ` (partial: the lines of ${withLines} of ${plural(invoices, 'invoice')})`,
  };
}

export function salesTables(a: any, groupBy: string): TableText[] {
  const captions = linesCaptions(a);
  const byProduct = a.groups.some((g: any) => g.quantity !== undefined);
  const quantity = (g: any) => (byProduct ? [g.quantity] : []);
  return [
    { caption: captions.totals, rows: a.totals.map((t: any) => [t.currency, String(t.count), t.subtotal, t.tax, t.total]), foot: [] },
    ...currenciesOf(a.groups).map((currency) => ({
      caption: `Sales in ${currency} by ${groupBy}${captions.groups}`,
      rows: a.groups
        .filter((g: any) => g.currency === currency)
        .map((g: any) => [g.label, g.total, String(g.count), g.subtotal, ...quantity(g)]),
      foot: [],
    })),
  ];
}

/** "about 40 seconds", "about 4 minutes": how long the page says the missing lines take. */
export const aboutTime = (seconds: number): string =>
  seconds < 120 ? `about ${plural(seconds, 'second')}` : `about ${plural(Math.ceil(seconds / 60), 'minute')}`;

export function receivedTables(a: any, groupBy: string): TableText[] {
  return [
    { caption: 'Totals per currency', rows: a.totals.map((t: any) => [t.currency, String(t.count), t.amount, t.allocated]), foot: [] },
    ...currenciesOf(a.groups).map((currency) => ({
      caption: `Received in ${currency} by ${groupBy}`,
      rows: a.groups.filter((g: any) => g.currency === currency).map((g: any) => [g.label, g.amount, String(g.count)]),
      foot: [],
    })),
  ];
}

export function lowStockTables(a: any): TableText[] {
  return a.branches.flatMap((b: any) => {
    const items = a.items.filter((i: any) => i.branch_id === b.branch_id);
    if (items.length === 0) return [];
    return [
      {
        caption: `Stock at ${b.branch} against reorder level`,
        rows: items.map((i: any) => [i.name, i.on_hand, i.reorder_level, i.short_by]),
        foot: [],
      },
    ];
  });
}
