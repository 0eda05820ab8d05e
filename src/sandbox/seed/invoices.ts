// Sample invoices over every status, with lines priced by the same arithmetic as a created invoice. Times
// are moments of the timeline (see timeline.ts) until the books are finished.

import { Decimal, toAmount } from '../amounts.js';
import type { BusinessProfile, Customer, Invoice, InvoiceStatus, Product } from '../books.js';
import { formatCode } from '../books.js';
import { buildLine } from '../creates.js';
import type { Rng } from '../prng.js';
import { addDays } from '../time.js';
import { ensureAgeBands } from './age-bands.js';
import { businessSecond, creationTimes, laterTime, type Timeline } from './timeline.js';
import { randomTokenFrom } from './tokens.js';
import { FREE_TEXT_LINES } from './words.js';

const RECENT: InvoiceStatus[] = ['draft', 'approved', 'issued', 'sent', 'viewed'];
const SETTLED: [InvoiceStatus, number][] = [
  ['paid', 0.62],
  ['part_paid', 0.1],
  ['overdue', 0.14],
  ['void', 0.05],
  ['sent', 0.05],
  ['viewed', 0.04],
];

function statusFor(rng: Rng, ageDays: number): InvoiceStatus {
  if (ageDays < 25) return rng.pick(RECENT);
  let roll = rng.next();
  for (const [status, weight] of SETTLED) {
    if (roll < weight) return status;
    roll -= weight;
  }
  return 'paid';
}

function quantity(rng: Rng): string {
  return rng.chance(0.2) ? `${rng.int(1, 9)}.${rng.pick(['25', '5', '75'])}` : String(rng.int(1, 12));
}

function lines(rng: Rng, profile: BusinessProfile, products: Product[], created: number): Invoice['items'] {
  const available = products.filter((p) => p.createdMs <= created);
  const count = rng.int(1, 6);
  const out: Invoice['items'] = [];
  for (let i = 0; i < count; i++) {
    const product = available.length > 0 && rng.chance(0.6) ? rng.pick(available) : null;
    const unitPrice = product ? null : `${rng.int(15, 900)}.${rng.pick(['00', '50', '95'])}`;
    const description = product ? null : rng.pick(FREE_TEXT_LINES);
    out.push(buildLine({ quantity: quantity(rng), product, description, unit_price: unitPrice, taxCategory: null }, profile));
  }
  return out;
}

function currencyFor(rng: Rng, profile: BusinessProfile): string {
  if (profile.currency !== 'NZD') return profile.currency;
  const roll = rng.next();
  return roll < 0.03 ? 'AUD' : roll < 0.05 ? 'USD' : 'NZD';
}

export interface InvoiceSeed {
  profile: BusinessProfile;
  timeline: Timeline;
  customers: Customer[];
  products: Product[];
  count: number;
  /** Till sales in each of the last 13 weeks, besides those in the spread. */
  tillSalesPerWeek: number;
  firstNumber: number;
  nextId: () => number;
}

interface Slot {
  created: number;
  pos: boolean;
}

/** Days of each week (1 = yesterday) the recent till sales fall on, for up to 4 a week. */
const TILL_DAYS = [1, 3, 5, 6];
const RECENT_WEEKS = 13;

/** Creation moments: the spread over two years (every 12th a till sale), and recent till sales every week. */
function slots(rng: Rng, seed: InvoiceSeed): Slot[] {
  const { timeline } = seed;
  const spread = creationTimes(rng, seed.count).map((created, i) => ({ created, pos: i % 12 === 5 && timeline.age(created) > 2 }));
  const till: Slot[] = [];
  for (let week = 0; week < RECENT_WEEKS; week++) {
    for (const day of TILL_DAYS.slice(0, seed.tillSalesPerWeek)) {
      till.push({ created: timeline.daysAgo(week * 7 + day, businessSecond(rng)), pos: true });
    }
  }
  return [...spread, ...till].sort((a, b) => a.created - b.created);
}

function dates(rng: Rng, slot: Slot, status: InvoiceStatus, timeline: Timeline): { issue: string; due: string; status: InvoiceStatus } {
  const issue = timeline.date(slot.created);
  let due = slot.pos ? issue : addDays(issue, rng.pick([14, 14, 30]));
  if (status === 'overdue' && due >= timeline.today) status = 'sent';
  if ((status === 'sent' || status === 'viewed') && due < timeline.today && rng.chance(0.5)) due = timeline.today;
  return { issue, due, status };
}

export function makeInvoices(rng: Rng, seed: InvoiceSeed): Invoice[] {
  const { profile, customers, timeline } = seed;
  const invoices = slots(rng, seed).map((slot, i): Invoice => {
    const known = customers.filter((c) => c.createdMs <= slot.created);
    const customer = rng.pick(known.length > 0 ? known : customers);
    const { issue, due, status } = dates(rng, slot, slot.pos ? 'paid' : statusFor(rng, timeline.age(slot.created)), timeline);
    const items = lines(rng, profile, seed.products, slot.created);
    const subtotal = toAmount(Decimal.sum(items.map((l) => l.line_total)));
    const taxTotal = toAmount(Decimal.sum(items.map((l) => l.tax_amount)));
    const total = toAmount(Decimal.parse(subtotal).plus(taxTotal));
    return {
      id: seed.nextId(),
      number: formatCode('INV', seed.firstNumber + i),
      status,
      customerId: customer.id,
      issue_date: issue,
      due_date: due,
      currency: slot.pos ? profile.currency : currencyFor(rng, profile),
      subtotal,
      tax_total: taxTotal,
      total,
      balance: status === 'void' ? '0.00' : total,
      sales_channel: slot.pos ? 'pos' : null,
      portalToken: randomTokenFrom(rng, 24),
      notes: rng.chance(0.15) ? 'Thank you for your business.' : null,
      terms: slot.pos ? null : 'Payment due by the due date.',
      items,
      createdMs: slot.created,
      updatedMs: slot.pos ? slot.created : laterTime(rng, slot.created, 10),
    };
  });
  ensureAgeBands(invoices, timeline.today);
  return invoices;
}
