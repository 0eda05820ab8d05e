// Sample invoices over every status, with lines priced by the same arithmetic as a created invoice.
import type { BusinessProfile, Customer, Invoice, InvoiceStatus, Product } from '../books.js';
import { formatCode } from '../books.js';
import { buildLine } from '../creates.js';
import { Money, sum, toAmount } from '../money.js';
import type { Rng } from '../prng.js';
import { randomTokenFrom } from './tokens.js';
import { BOOKS_ANCHOR_MS } from './profiles.js';
import { DAY_MS, creationTimes, laterTime } from './timeline.js';
import { addDays, localDate } from '../time.js';
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

function statusFor(rng: Rng, createdMs: number): InvoiceStatus {
  if (BOOKS_ANCHOR_MS - createdMs < 25 * DAY_MS) return rng.pick(RECENT);
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

function lines(rng: Rng, profile: BusinessProfile, products: Product[], createdMs: number): Invoice['items'] {
  const available = products.filter((p) => p.createdMs <= createdMs);
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
  customers: Customer[];
  products: Product[];
  count: number;
  firstNumber: number;
  nextId: () => number;
}

export function makeInvoices(rng: Rng, seed: InvoiceSeed): Invoice[] {
  const { profile, customers } = seed;
  const anchorDate = localDate(BOOKS_ANCHOR_MS, profile.timeZone);
  return creationTimes(rng, seed.count).map((createdMs, i) => {
    const known = customers.filter((c) => c.createdMs <= createdMs);
    const customer = rng.pick(known.length > 0 ? known : customers);
    const pos = i % 12 === 5 && BOOKS_ANCHOR_MS - createdMs > 2 * DAY_MS;
    let status: InvoiceStatus = pos ? 'paid' : statusFor(rng, createdMs);
    const issueDate = localDate(createdMs, profile.timeZone);
    let dueDate = pos ? issueDate : addDays(issueDate, rng.pick([14, 14, 30]));
    if (status === 'overdue' && dueDate >= anchorDate) status = 'sent';
    if ((status === 'sent' || status === 'viewed') && dueDate < anchorDate && rng.chance(0.5)) dueDate = anchorDate;
    const items = lines(rng, seed.profile, seed.products, createdMs);
    const subtotal = toAmount(sum(items.map((l) => l.line_total)));
    const taxTotal = toAmount(sum(items.map((l) => l.tax_amount)));
    const total = toAmount(new Money(subtotal).plus(taxTotal));
    return {
      id: seed.nextId(),
      number: formatCode('INV', seed.firstNumber + i),
      status,
      customerId: customer.id,
      issue_date: issueDate,
      due_date: dueDate,
      currency: pos ? profile.currency : currencyFor(rng, profile),
      subtotal,
      tax_total: taxTotal,
      total,
      balance: status === 'void' ? '0.00' : total,
      sales_channel: pos ? 'pos' : null,
      portalToken: randomTokenFrom(rng, 24),
      notes: rng.chance(0.15) ? 'Thank you for your business.' : null,
      terms: pos ? null : 'Payment due by the due date.',
      items,
      createdMs,
      updatedMs: laterTime(rng, createdMs, 10),
    };
  });
}
