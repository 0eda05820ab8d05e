// The two businesses of the sandbox.
import type { BusinessProfile } from '../books.js';

export const MAIN_BUSINESS: BusinessProfile = {
  id: 1,
  name: 'Harbourside Supplies Ltd',
  currency: 'NZD',
  timeZone: 'Pacific/Auckland',
  branches: [
    { id: 1, name: 'North' },
    { id: 2, name: 'Central' },
    { id: 3, name: 'South' },
  ],
  taxCategories: [
    { id: 1, name: 'GST 15%', rate: '0.15' },
    { id: 2, name: 'Zero rated', rate: '0.00' },
  ],
  defaultTaxCategoryId: 1,
};

export const OTHER_BUSINESS: BusinessProfile = {
  id: 2,
  name: 'Bondi Bean Roasters Pty Ltd',
  currency: 'AUD',
  timeZone: 'Australia/Sydney',
  branches: [{ id: 4, name: 'Bondi' }],
  taxCategories: [
    { id: 3, name: 'GST 10%', rate: '0.10' },
    { id: 4, name: 'GST free', rate: '0.00' },
  ],
  defaultTaxCategoryId: 3,
};
