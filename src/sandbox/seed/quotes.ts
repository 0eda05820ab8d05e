// Sample quotes over every status.
import type { BusinessProfile, Customer, Quote } from '../books.js';
import { QUOTE_STATUSES, formatCode } from '../books.js';
import type { Rng } from '../prng.js';
import { addDays, localDate } from '../time.js';
import { creationTimes, laterTime } from './timeline.js';

export function makeQuotes(
  rng: Rng,
  profile: BusinessProfile,
  customers: Customer[],
  count: number,
  firstNumber: number,
  nextId: () => number,
): Quote[] {
  return creationTimes(rng, count).map((createdMs, i) => {
    const known = customers.filter((c) => c.createdMs <= createdMs && c.status === 'active');
    const status = QUOTE_STATUSES[i % QUOTE_STATUSES.length] as Quote['status'];
    const updatedMs = laterTime(rng, createdMs, 20);
    const issueDate = localDate(createdMs, profile.timeZone);
    return {
      id: nextId(),
      number: formatCode('QUO', firstNumber + i),
      status,
      customerId: rng.pick(known.length > 0 ? known : customers).id,
      issue_date: issueDate,
      valid_until: addDays(issueDate, 30),
      total: `${rng.int(80, 9000)}.${String(rng.int(0, 99)).padStart(2, '0')}`,
      acceptedMs: status === 'accepted' || status === 'converted' ? updatedMs : null,
      createdMs,
      updatedMs,
    };
  });
}
