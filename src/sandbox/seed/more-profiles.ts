// The businesses beyond the first two: made on demand (the sandbox's `businesses` option, or the admin
// interface), each from its id alone, so the same id gives the same business on every run. Odd ids keep
// their books in NZD (Pacific/Auckland), even ids in AUD (Australia/Sydney), as the two sample businesses do.
import type { BusinessProfile } from '../books.js';
import { COMPANY_KINDS, COMPANY_WORDS } from './words.js';

/** Each business's branch and tax-category ids are its own: two of each per business, from its id. */
export function moreProfile(id: number, name?: string): BusinessProfile {
  const nz = id % 2 === 1;
  const word = COMPANY_WORDS[id % COMPANY_WORDS.length] as string;
  const kind = COMPANY_KINDS[Math.floor(id / COMPANY_WORDS.length) % COMPANY_KINDS.length] as string;
  const first = 2 * id;
  return {
    id,
    name: name ?? `${word} ${kind} ${nz ? 'Ltd' : 'Pty Ltd'}`,
    currency: nz ? 'NZD' : 'AUD',
    timeZone: nz ? 'Pacific/Auckland' : 'Australia/Sydney',
    branches: [
      { id: first, name: 'Head office' },
      { id: first + 1, name: 'Shop' },
    ],
    taxCategories: nz
      ? [
          { id: first, name: 'GST 15%', rate: '0.15' },
          { id: first + 1, name: 'Zero rated', rate: '0.00' },
        ]
      : [
          { id: first, name: 'GST 10%', rate: '0.10' },
          { id: first + 1, name: 'GST free', rate: '0.00' },
        ],
    defaultTaxCategoryId: first,
  };
}
