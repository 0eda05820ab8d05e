// What the sign-in page does with a Key ID and Secret, cheapest first: a pair that cannot be a key of the
// service is wrong without asking it; a secret the vault holds for that key ID is the owner's, recognised
// at once; anything else must be asked of the service, but only within the failed sign-ins allowed per page,
// client address and key ID, and within the deployment's sign-in budget, where people come after renewals.
// So guesses never spend what others need: the owner, other businesses, and grants renewing their sessions.
import type { Logger } from '../../log/logger.js';
import type { FailedSignIns } from '../limits/failed-sign-ins.js';
import type { ServiceSignIns } from '../limits/service-sign-ins.js';
import type { TenantStore } from '../tenants/tenant-store.js';
import { type CheckedKey, checkKey, type KeyRefusal } from './key-check.js';
import { knownKey } from './known-key.js';

export interface SignInCheckDeps {
  serviceUrl: string;
  tenants: TenantStore;
  failures: FailedSignIns;
  budget: ServiceSignIns;
  /** How long a person's sign-in may wait for room in the budget before being told how long (ms). */
  personWaitMs: number;
  logger: Logger;
}

export interface SignInAttempt {
  /** The sign-in page (interaction) it was posted on. */
  page: string;
  address: string;
  keyId: string;
  secret: string;
}

/** The spec's key IDs and secrets: `svck_<mode>_…` with `svc_<mode>_…` of the same mode. */
const KEY_ID = /^svck_(live|test)_[\x21-\x7e]+$/;

const COUNTED_WORDS = {
  page: 'on this sign-in page',
  address: 'from your address',
  key: 'for this key ID',
} as const;

function waitWords(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 120) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

export function signInChecker(deps: SignInCheckDeps): (attempt: SignInAttempt) => Promise<CheckedKey | KeyRefusal> {
  return async ({ page, address, keyId, secret }) => {
    const mode = KEY_ID.exec(keyId)?.[1];
    if (mode === undefined || !secret.startsWith(`svc_${mode}_`)) {
      return {
        kind: 'wrong',
        message: `That is not a key of the Invoicing Service: a key ID starts with svck_live_ or svck_test_, and its secret with svc_live_ or svc_test_, of the same mode.`,
      };
    }
    const known = await knownKey(deps.tenants, keyId, secret);
    if (known) return { businessId: known.businessId, businessName: known.businessName, mode: known.mode, scopes: known.scopes };
    const taken = await deps.failures.take({ page, address, keyId });
    if ('full' in taken) {
      const retryAfter = Math.max(1, Math.ceil(taken.waitMs / 1000));
      return {
        kind: 'rate',
        message: `Too many wrong sign-ins ${COUNTED_WORDS[taken.full]}. Try again in ${waitWords(taken.waitMs)}.`,
        retryAfter,
      };
    }
    const checked = await checkKey(deps.serviceUrl, keyId, secret, deps.logger, () => deps.budget.take('person', deps.personWaitMs));
    // Only a wrong secret is a failure: not a key that worked or that the service refused as a key, nor a check with no answer.
    if (!('kind' in checked) || checked.kind !== 'wrong') await deps.failures.giveBack(taken.ticket);
    return checked;
  };
}
