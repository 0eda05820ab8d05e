// Checks a business's key by signing in to the service with it, as the sign-in page does before it shows
// the business: what the key is (business, mode, scopes), or why the service refused it, in its words.
// The client made for the check signs out at once; a tenant has its own.
import { type ApiClient, createApiClient } from '../../api/client.js';
import { Forbidden, RateLimited, Unauthorized } from '../../api/errors.js';
import type { Logger } from '../../log/logger.js';

export interface CheckedKey {
  businessId: number;
  businessName: string;
  mode: 'live' | 'test';
  scopes: string[];
}

export type KeyRefusal = { kind: 'wrong' | 'refused' | 'rate' | 'unreachable'; message: string; retryAfter?: number };

/** A sign-in fails fast here: the person is waiting on the page. */
const CHECK_OPTIONS = { maxRetries: 1, retryBudgetMs: 5_000, maxWaitMs: 0, signInFailureCooldownMs: 0, requestTimeoutMs: 10_000 };

function refusalOf(err: unknown): KeyRefusal {
  const words = (e: { serviceMessage: string | null; message: string }): string => e.serviceMessage ?? e.message;
  if (err instanceof Unauthorized) return { kind: 'wrong', message: words(err) };
  if (err instanceof RateLimited) {
    const seconds = Math.max(1, Math.ceil(err.retryAfter));
    // Our own refusal already says how long; the service's words get it added.
    const message = err.serviceMessage === null ? err.message : `${err.serviceMessage} (try again in ${seconds} seconds)`;
    return { kind: 'rate', message, retryAfter: seconds };
  }
  if (err instanceof Forbidden) return { kind: 'refused', message: words(err) };
  return { kind: 'unreachable', message: 'The Invoicing Service could not be reached to check the key; try again in a moment.' };
}

/** `allowance`: waited for before each sign-in request (the deployment's budget), or refuses with RateLimited. */
export async function checkKey(
  baseUrl: string,
  keyId: string,
  secret: string,
  logger: Logger,
  allowance?: () => Promise<void>,
): Promise<CheckedKey | KeyRefusal> {
  let client: ApiClient;
  try {
    client = createApiClient(
      { baseUrl, keyId, secret },
      { logger, options: CHECK_OPTIONS, ...(allowance ? { signInAllowance: allowance } : {}) },
    );
  } catch {
    return { kind: 'wrong', message: 'That is not a key ID and secret of the Invoicing Service.' };
  }
  try {
    const session = await client.session();
    return {
      businessId: Number(session.business?.id),
      businessName: session.business?.name ?? '',
      mode: session.mode === 'live' ? 'live' : 'test',
      scopes: session.scopes,
    };
  } catch (err) {
    return refusalOf(err);
  } finally {
    await client.close().catch(() => undefined);
  }
}
