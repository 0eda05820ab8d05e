// The business's base currency, which drafts are made in. Neither sign-in nor ping reports it, so it is learnt
// from the records: the currency most of the business's oldest invoices are in, one page of them (one call;
// the mirror is not asked, as asking would open a resting one and start its sync).
import { counted } from '../src/core/counted.js';
import type { ToolContext } from './context.js';

export interface BaseCurrency {
  code: string | null;
  /** How it was learnt, or why it is not known. */
  from: string;
}

const LOOKED_AT = 100;

export async function baseCurrency(ctx: ToolContext, scopes: readonly string[]): Promise<BaseCurrency> {
  if (!scopes.includes('invoices.read')) return { code: null, from: 'not known: this key cannot read invoices' };
  try {
    const page = await ctx.api.invoices.list({ per_page: LOOKED_AT });
    const counts = new Map<string, number>();
    for (const i of page.data) counts.set(i.currency, (counts.get(i.currency) ?? 0) + 1);
    const [most] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    if (!most) return { code: null, from: 'not known: the business has no invoices yet' };
    return { code: most[0], from: `the currency of ${most[1]} of its oldest ${counted(page.data.length, 'invoice')}` };
  } catch (err) {
    return { code: null, from: `not known now: reading invoices failed (${err instanceof Error ? err.message : String(err)})` };
  }
}
