// A key this deployment already holds: the secret given is compared, in constant time, with the one the
// vault keeps for that key ID, and when they are the same the owner is recognised with no sign-in spent at
// the service (so guesses at their key, refused meanwhile, cannot keep them out). Nothing new is stored:
// the comparison opens what the vault already has.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TenantRecord, TenantStore } from '../tenants/tenant-store.js';

/** Equal in constant time whatever the lengths: both are hashed under a key drawn for this comparison. */
export function sameSecret(given: string, kept: string): boolean {
  const key = randomBytes(32);
  const digest = (text: string): Buffer => createHmac('sha256', key).update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(kept));
}

/** The key's record when `secret` is the one the vault holds for it; null when it holds none or another. */
export async function knownKey(tenants: TenantStore, keyId: string, secret: string): Promise<TenantRecord | null> {
  const found = await tenants.find(keyId);
  if (!found || !sameSecret(secret, found.secret)) return null;
  return found.record;
}
