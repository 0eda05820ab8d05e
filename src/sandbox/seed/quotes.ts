// Sample quotes over every status, valid for 30 days: a spread over two years, and recent open quotes
// (one every few days over the last month) that expire over the coming weeks. Times are moments of the
// timeline until the books are finished; open quotes already past validity expire when the sandbox starts.
import type { BusinessProfile, Customer, Quote, QuoteStatus } from '../books.js';
import { formatCode, QUOTE_STATUSES } from '../books.js';
import type { Rng } from '../prng.js';
import { addDays } from '../time.js';
import { businessSecond, creationTimes, laterTime, type Timeline } from './timeline.js';

const VALID_DAYS = 30;
const OPEN: QuoteStatus[] = ['sent', 'viewed', 'draft', 'sent', 'viewed'];

export interface QuoteSeed {
  profile: BusinessProfile;
  timeline: Timeline;
  customers: Customer[];
  count: number;
  /** Days between the recent open quotes over the last month. */
  openEveryDays: number;
  firstNumber: number;
  nextId: () => number;
}

interface Slot {
  created: number;
  status: QuoteStatus;
}

function slots(rng: Rng, seed: QuoteSeed): Slot[] {
  const spread = creationTimes(rng, seed.count).map((created, i) => ({
    created,
    status: QUOTE_STATUSES[i % QUOTE_STATUSES.length] as QuoteStatus,
  }));
  const open: Slot[] = [];
  for (let ago = 2, i = 0; ago <= VALID_DAYS; ago += seed.openEveryDays, i++) {
    open.push({ created: seed.timeline.daysAgo(ago, businessSecond(rng)), status: OPEN[i % OPEN.length] as QuoteStatus });
  }
  return [...spread, ...open].sort((a, b) => a.created - b.created);
}

export function makeQuotes(rng: Rng, seed: QuoteSeed): Quote[] {
  const { customers, timeline } = seed;
  return slots(rng, seed).map(({ created, status }, i) => {
    const known = customers.filter((c) => c.createdMs <= created && c.status === 'active');
    const open = status === 'draft' || status === 'sent' || status === 'viewed';
    const updated = laterTime(rng, created, open ? 3 : 20);
    const issueDate = timeline.date(created);
    return {
      id: seed.nextId(),
      number: formatCode('QUO', seed.firstNumber + i),
      status,
      customerId: rng.pick(known.length > 0 ? known : customers).id,
      issue_date: issueDate,
      valid_until: addDays(issueDate, VALID_DAYS),
      total: `${rng.int(80, 9000)}.${String(rng.int(0, 99)).padStart(2, '0')}`,
      acceptedMs: status === 'accepted' || status === 'converted' ? updated : null,
      createdMs: created,
      updatedMs: updated,
    };
  });
}
