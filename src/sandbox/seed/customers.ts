// Sample customers: companies and people, some archived, with NZ (or AU) contact details.
import type { BusinessProfile, Customer, IdSequences } from '../books.js';
import { formatCode, takeId } from '../books.js';
import type { Rng } from '../prng.js';
import { creationTimes, laterTime } from './timeline.js';
import { CITIES, COMPANY_KINDS, COMPANY_SUFFIXES, COMPANY_WORDS, FIRST_NAMES, LAST_NAMES, NOTES, STREETS } from './words.js';

function customerName(rng: Rng, i: number): string {
  if (i % 4 === 3) return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
  return `${rng.pick(COMPANY_WORDS)} ${rng.pick(COMPANY_KINDS)} ${rng.pick(COMPANY_SUFFIXES)}`;
}

const slug = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '');

export function makeCustomers(rng: Rng, profile: BusinessProfile, ids: IdSequences, count: number, firstCode: number): Customer[] {
  const dialling = profile.currency === 'NZD' ? '+64' : '+61';
  return creationTimes(rng, count).map((createdMs, i) => {
    const name = customerName(rng, i);
    const [city, region, postcode] = rng.pick(CITIES);
    const id = takeId(ids, 'customer');
    const archived = i % 10 === 7;
    return {
      id,
      code: formatCode('CUS', firstCode + i),
      name,
      email: rng.chance(0.9) ? `accounts@${slug(name)}${i}.example.com` : null,
      phone: rng.chance(0.85) ? `${dialling} ${rng.int(2, 9)} ${rng.int(200, 999)} ${rng.int(1000, 9999)}` : null,
      tax_number: rng.chance(0.6) ? `${rng.int(100, 139)}-${rng.int(100, 999)}-${rng.int(100, 999)}` : null,
      address: {
        line1: `${rng.int(1, 400)} ${rng.pick(STREETS)}`,
        line2: rng.chance(0.2) ? `Unit ${rng.int(1, 30)}` : null,
        city,
        region,
        postal_code: `${postcode}${rng.int(10, 99)}`,
      },
      status: archived ? 'archived' : 'active',
      notes: rng.chance(0.3) ? rng.pick(NOTES) : null,
      createdMs,
      updatedMs: laterTime(rng, createdMs, archived ? 400 : 120),
    };
  });
}
