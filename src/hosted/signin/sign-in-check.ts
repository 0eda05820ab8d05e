// What the sign-in page does with a Key ID and Secret, cheapest first: a pair that cannot be a key of the
// service is refused without asking it; a secret the vault holds for that key ID is the owner's, and a pair
// the service accepted a few minutes ago is still right, both recognised at once; right answers posted
// together wait for one check; anything else is asked of the service, within the unfinished sign-ins
// allowed per page, client address and key ID (a wrong secret, or a right one never followed by Allow),
// and within the deployment's sign-in budget, where people come after renewals and each has a share.
import { createHash } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import type { FailedSignIns, Ticket } from '../limits/failed-sign-ins.js';
import type { ServiceSignIns } from '../limits/service-sign-ins.js';
import type { TenantStore } from '../tenants/tenant-store.js';
import { type CheckedKey, checkKey, type KeyRefusal } from './key-check.js';
import { shapeProblem } from './key-shape.js';
import { knownKey } from './known-key.js';
import type { KeyPair, VerifiedKeys } from './verified-keys.js';

export interface SignInCheckDeps {
  serviceUrl: string;
  tenants: TenantStore;
  failures: FailedSignIns;
  budget: ServiceSignIns;
  verified: VerifiedKeys;
  /** How long a person's sign-in may wait for room in the budget before being told how long (ms). */
  personWaitMs: number;
  /** Waits between looks at a check under way in another process. */
  sleep: (ms: number) => Promise<void>;
  logger: Logger;
}

export interface SignInAttempt {
  /** The sign-in page (interaction) it was posted on. */
  page: string;
  address: string;
  keyId: string;
  secret: string;
}

/**
 * A key recognised, with the places it holds in the counts of unfinished sign-ins (null when it took none):
 * Allow gives them back.
 */
export type SignInOutcome = { key: CheckedKey; ticket: Ticket | null } | KeyRefusal;

const COUNTED_WORDS = {
  page: 'on this sign-in page',
  address: 'from your address',
  key: 'for this key ID',
} as const;

/** How often a check under way in another process is looked at again. */
const CHECKING_POLL_MS = 250;

function waitWords(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 120) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

export interface SignInChecker {
  check(attempt: SignInAttempt): Promise<SignInOutcome>;
  /** Allow made the grant: the sign-in's places are given back. */
  granted(ticket: Ticket | null): Promise<void>;
}

export function signInChecker(deps: SignInCheckDeps): SignInChecker {
  /** Asks the service, within the counts and the budget; remembers a key it accepts. The pair is this caller's to check. */
  async function askService({ page, address, keyId, secret }: SignInAttempt): Promise<SignInOutcome> {
    const taken = await deps.failures.take({ page, address, keyId });
    if ('full' in taken) {
      return {
        kind: 'rate',
        message: `Too many sign-ins ${COUNTED_WORDS[taken.full]} that had a wrong secret or never reached Allow. Try again in ${waitWords(taken.waitMs)}.`,
        retryAfter: Math.max(1, Math.ceil(taken.waitMs / 1000)),
      };
    }
    const allowance = () => deps.budget.take({ kind: 'person', keyId, address }, deps.personWaitMs);
    const checked = await checkKey(deps.serviceUrl, keyId, secret, deps.logger, allowance);
    if (!('kind' in checked)) {
      await deps.verified.remember({ keyId, secret }, checked);
      return { key: checked, ticket: taken.ticket };
    }
    // A sign-in that never reached the service (the budget had no room) or had no answer is not the person's.
    if (checked.kind === 'rate' || checked.kind === 'unreachable') await deps.failures.giveBack(taken.ticket);
    return checked;
  }

  /**
   * The pair's key from a check lately, or from one under way elsewhere once it ends; else the service's
   * answer. Only a check that holds the pair's turn makes others wait: when it ends without the key, those
   * waiting ask for themselves at once, counted together as before.
   */
  async function recalledOrAsked(attempt: SignInAttempt): Promise<SignInOutcome> {
    const pair: KeyPair = { keyId: attempt.keyId, secret: attempt.secret };
    let recalled = await deps.verified.recallOrClaim(pair);
    while (recalled !== null && 'checking' in recalled) {
      await deps.sleep(CHECKING_POLL_MS);
      recalled = await deps.verified.recall(pair);
    }
    if (recalled !== null && 'checked' in recalled) return { key: recalled.checked, ticket: null };
    if (recalled === null) return askService(attempt);
    let outcome: SignInOutcome | undefined;
    try {
      outcome = await askService(attempt);
      return outcome;
    } finally {
      if (outcome === undefined || 'kind' in outcome) await deps.verified.release(pair);
    }
  }

  // Posts of one pair at once in this process share one look (and one check): only the first holds places.
  const inFlight = new Map<string, Promise<SignInOutcome>>();

  return {
    async check(attempt) {
      const problem = shapeProblem(attempt.keyId, attempt.secret);
      if (problem !== null) {
        // The words name a strange character by its code point, never itself: the line stays one line.
        deps.logger.debug({ problem }, 'a sign-in was refused before the service: the key ID or secret cannot be one of its');
        return { kind: 'wrong', message: problem };
      }
      const known = await knownKey(deps.tenants, attempt.keyId, attempt.secret);
      if (known) {
        const { businessId, businessName, mode, scopes } = known;
        return { key: { businessId, businessName, mode, scopes }, ticket: null };
      }
      const id = createHash('sha256').update(`${attempt.keyId}\n${attempt.secret}`).digest('base64url');
      const running = inFlight.get(id);
      if (running) {
        // A key found is everyone's; a refusal was of the first post's page and address, so this one asks for itself.
        const shared = await running;
        if (!('kind' in shared)) return { key: shared.key, ticket: null };
        return askService(attempt);
      }
      const mine = recalledOrAsked(attempt).finally(() => inFlight.delete(id));
      inFlight.set(id, mine);
      return mine;
    },
    async granted(ticket) {
      if (ticket) await deps.failures.giveBack(ticket);
    },
  };
}
