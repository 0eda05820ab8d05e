// Sample payments that settle the paid and part-paid invoices exactly: some paid in two instalments,
// some payments split over several invoices of one customer and currency. Balances follow.
import type { BusinessProfile, Invoice, Payment } from '../books.js';
import { PAYMENT_METHODS } from '../books.js';
import { Money, toAmount } from '../money.js';
import type { Rng } from '../prng.js';
import { localDate } from '../time.js';
import { DAY_MS, laterTime } from './timeline.js';

type Draft = Omit<Payment, 'id'>;

function draft(rng: Rng, profile: BusinessProfile, invoices: Invoice[], amounts: string[], afterMs: number): Draft {
  const createdMs = laterTime(rng, afterMs, 25);
  const total = amounts.reduce((acc, a) => acc.plus(a), new Money(0));
  return {
    customerId: (invoices[0] as Invoice).customerId,
    amount: toAmount(total),
    currency: (invoices[0] as Invoice).currency,
    payment_date: localDate(createdMs, profile.timeZone),
    method: rng.pick(PAYMENT_METHODS),
    reference: `REF-${(invoices[0] as Invoice).number.slice(4)}-${rng.int(100, 999)}`,
    allocations: invoices.map((inv, i) => ({ invoice_id: inv.id, amount: amounts[i] as string })),
    createdMs,
    updatedMs: createdMs,
  };
}

/** A part of `total`, between a fifth and four fifths, to the cent. */
function part(rng: Rng, total: string): string {
  return toAmount(new Money(total).times(rng.int(20, 80)).dividedBy(100));
}

function settle(rng: Rng, profile: BusinessProfile, invoices: Invoice[]): Draft[] {
  const drafts: Draft[] = [];
  const singles = new Map<string, Invoice[]>();
  for (const inv of invoices) {
    if (inv.status === 'part_paid') {
      const paid = part(rng, inv.total);
      drafts.push(draft(rng, profile, [inv], [paid], inv.createdMs));
      inv.balance = toAmount(new Money(inv.total).minus(paid));
    } else if (inv.status === 'paid' && inv.sales_channel === 'pos') {
      drafts.push(draft(rng, profile, [inv], [inv.total], inv.createdMs));
      inv.balance = '0.00';
    } else if (inv.status === 'paid' && rng.chance(0.3)) {
      const first = draft(rng, profile, [inv], [part(rng, inv.total)], inv.createdMs);
      const rest = toAmount(new Money(inv.total).minus(first.amount));
      drafts.push(first, draft(rng, profile, [inv], [rest], first.createdMs + DAY_MS));
      inv.balance = '0.00';
    } else if (inv.status === 'paid') {
      const key = `${inv.customerId}:${inv.currency}`;
      singles.set(key, [...(singles.get(key) ?? []), inv]);
      inv.balance = '0.00';
    }
  }
  for (const group of singles.values()) {
    for (let i = 0; i < group.length; ) {
      const take = group.length - i >= 2 && rng.chance(0.25) ? rng.int(2, Math.min(3, group.length - i)) : 1;
      const batch = group.slice(i, i + take);
      const lastMs = Math.max(...batch.map((inv) => inv.createdMs));
      drafts.push(draft(rng, profile, batch, batch.map((inv) => inv.total), lastMs));
      i += take;
    }
  }
  return drafts;
}

export function makePayments(rng: Rng, profile: BusinessProfile, invoices: Invoice[], nextId: () => number): Payment[] {
  const drafts = settle(rng, profile, invoices).sort((a, b) => a.createdMs - b.createdMs);
  const payments = drafts.map((d) => ({ id: nextId(), ...d }));
  const byId = new Map(invoices.map((inv) => [inv.id, inv]));
  for (const p of payments) {
    for (const a of p.allocations) {
      const inv = byId.get(a.invoice_id) as Invoice;
      inv.updatedMs = Math.max(inv.updatedMs, p.createdMs);
    }
  }
  return payments;
}
