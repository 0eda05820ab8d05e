// Sample payments that settle the paid and part-paid invoices exactly: some paid in two instalments,
// some payments split over several invoices of one customer and currency. Balances follow. Till sales are
// paid at the till when they are made; the recent ones take each method in turn, so every recent month
// holds payments by every method. Times are moments of the timeline until the books are finished.

import { Decimal, toAmount } from '../amounts.js';
import type { Invoice, Payment, PaymentMethod } from '../books.js';
import { PAYMENT_METHODS } from '../books.js';
import type { Rng } from '../prng.js';
import { DAY, laterTime, type Timeline } from './timeline.js';

type Draft = Omit<Payment, 'id'>;

const RECENT_DAYS = 91;

function draft(timeline: Timeline, invoices: Invoice[], amounts: string[], at: number, method: PaymentMethod, rng: Rng): Draft {
  const first = invoices[0] as Invoice;
  const total = Decimal.sum(amounts);
  return {
    customerId: first.customerId,
    amount: toAmount(total),
    currency: first.currency,
    payment_date: timeline.date(at),
    method,
    reference: `REF-${first.number.slice(4)}-${rng.int(100, 999)}`,
    allocations: invoices.map((inv, i) => ({ invoice_id: inv.id, amount: amounts[i] as string })),
    createdMs: at,
    updatedMs: at,
  };
}

/** A part of `total`, between a fifth and four fifths, to the cent. */
function part(rng: Rng, total: string): string {
  return toAmount(Decimal.parse(total).times(Decimal.of(BigInt(rng.int(20, 80)), 2)));
}

class Settler {
  readonly drafts: Draft[] = [];
  #tillTurn = 0;

  constructor(
    readonly rng: Rng,
    readonly timeline: Timeline,
  ) {}

  /** A payment some days after `after`, by a method drawn at random. */
  later(invoices: Invoice[], amounts: string[], after: number): Draft {
    const at = laterTime(this.rng, after, 25);
    const made = draft(this.timeline, invoices, amounts, at, this.rng.pick(PAYMENT_METHODS), this.rng);
    this.drafts.push(made);
    return made;
  }

  /** A till sale paid in full when it is made. */
  atTill(inv: Invoice): void {
    const recent = this.timeline.age(inv.createdMs) <= RECENT_DAYS;
    const method = recent
      ? (PAYMENT_METHODS[this.#tillTurn++ % PAYMENT_METHODS.length] as PaymentMethod)
      : this.rng.pick(['cash', 'card'] as const);
    this.drafts.push(draft(this.timeline, [inv], [inv.total], inv.createdMs, method, this.rng));
  }
}

function settle(rng: Rng, timeline: Timeline, invoices: Invoice[]): Draft[] {
  const settler = new Settler(rng, timeline);
  const singles = new Map<string, Invoice[]>();
  for (const inv of invoices) {
    if (inv.status === 'part_paid') {
      const paid = part(rng, inv.total);
      settler.later([inv], [paid], inv.createdMs);
      inv.balance = toAmount(Decimal.parse(inv.total).minus(paid));
    } else if (inv.status === 'paid' && inv.sales_channel === 'pos') {
      settler.atTill(inv);
      inv.balance = '0.00';
    } else if (inv.status === 'paid' && rng.chance(0.3)) {
      const first = settler.later([inv], [part(rng, inv.total)], inv.createdMs);
      const rest = toAmount(Decimal.parse(inv.total).minus(first.amount));
      settler.later([inv], [rest], Math.min(first.createdMs + DAY, timeline.anchor - 1));
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
      const last = Math.max(...batch.map((inv) => inv.createdMs));
      settler.later(
        batch,
        batch.map((inv) => inv.total),
        last,
      );
      i += take;
    }
  }
  return settler.drafts;
}

export function makePayments(rng: Rng, timeline: Timeline, invoices: Invoice[], nextId: () => number): Payment[] {
  const drafts = settle(rng, timeline, invoices).sort((a, b) => a.createdMs - b.createdMs);
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
