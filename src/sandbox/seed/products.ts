// Sample products and services: some archived, some tracked with stock in every branch, several at or
// below their reorder level.
import type { BusinessProfile, IdSequences, Product } from '../books.js';
import { takeId } from '../books.js';
import type { Rng } from '../prng.js';
import { creationTimes, laterTime } from './timeline.js';
import { PRODUCT_ADJECTIVES, PRODUCT_NOUNS, SERVICES } from './words.js';

function price(rng: Rng): string {
  const cents = String(rng.int(0, 99)).padStart(2, '0');
  return rng.chance(0.1) ? `${rng.int(0, 9)}.${cents}${rng.int(10, 99)}` : `${rng.int(2, 480)}.${cents}`;
}

function stockFor(rng: Rng, profile: BusinessProfile, low: boolean): Product['stock'] {
  const reorder = rng.int(5, 20);
  return {
    reorder_level: String(reorder),
    branches: profile.branches.map((b) => ({
      branch_id: b.id,
      on_hand: String(low ? rng.int(0, Math.floor(reorder / profile.branches.length)) : rng.int(reorder, reorder + 60)),
    })),
  };
}

export function makeProducts(rng: Rng, profile: BusinessProfile, ids: IdSequences, count: number, batch: number): Product[] {
  const zeroRated = profile.taxCategories.find((t) => t.id !== profile.defaultTaxCategoryId)?.id ?? profile.defaultTaxCategoryId;
  let tracked = 0;
  return creationTimes(rng, count).map((createdMs, i) => {
    const id = takeId(ids, 'product');
    const serial = batch * 1000 + i + 1;
    const isService = i % 6 === 2;
    const track = !isService && i % 5 !== 4;
    const low = track && tracked++ % 5 === 1;
    const name = isService ? rng.pick(SERVICES) : `${rng.pick(PRODUCT_ADJECTIVES)} ${rng.pick(PRODUCT_NOUNS)}`;
    return {
      id,
      name,
      sku: isService ? `SVC-${serial}` : i % 9 === 8 ? null : `HS-${String(serial).padStart(5, '0')}`,
      barcode: isService || i % 7 === 6 ? null : `94${String(profile.id).padStart(2, '0')}${String(serial).padStart(9, '0')}`,
      type: isService ? 'service' : 'product',
      description: isService ? `${name} by our team` : `${name}, sold each`,
      default_price: price(rng),
      is_active: i % 11 !== 10,
      track_stock: track,
      taxCategoryId: i % 13 === 12 ? zeroRated : profile.defaultTaxCategoryId,
      stock: track ? stockFor(rng, profile, low) : null,
      createdMs,
      // Stock moves keep products fresh: most were touched in the last months.
      updatedMs: laterTime(rng, createdMs, 700),
    };
  });
}
