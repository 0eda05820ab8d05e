// What the deployment answers while it cannot serve a request for now (its database unreachable, or a secret
// sealed under a vault key this process lacks mid-rotation): a 503 with Retry-After, at /mcp and at the
// authorization server's endpoints alike (a token request is retried, not taken for a refusal); and /readyz
// not ready while the database is down, whether or not a tenant is loaded (right after a restart none is).
import type { KoaContextWithOIDC } from 'oidc-provider';
import { within } from '../../core/timers.js';
import { isUnreachable, RETRY_AFTER_SECONDS } from '../../core/unreachable.js';
import type { Readiness, ReadinessProbe } from '../../http/health.js';
import type { PgDb } from '../../store/postgres/db.js';
import { VaultKeyMissing } from '../vault/sealer.js';

/** A refusal that is only for now: how long to wait, and why, in words for the client. */
export interface Pause {
  retryAfter: number;
  why: string;
}

const VAULT_RETRY_AFTER_SECONDS = 30;

/** The pause an error stands for, or null when it is not one that passes. */
export function pauseFor(err: unknown): Pause | null {
  if (isUnreachable(err)) return { retryAfter: RETRY_AFTER_SECONDS, why: "the books' database is briefly unreachable" };
  if (err instanceof VaultKeyMissing)
    return {
      retryAfter: VAULT_RETRY_AFTER_SECONDS,
      why: 'this server cannot open the stored secrets this request needs yet (its vault keys are being rotated)',
    };
  return null;
}

/** The OAuth error body of a pause. */
export const pauseBody = (pause: Pause) => ({
  error: 'temporarily_unavailable',
  error_description: `${pause.why}; try again in ${pause.retryAfter} s`,
});

/** Turns the provider's error into a 503 with Retry-After; a JSON body says so in OAuth's words. */
export function briefly(ctx: KoaContextWithOIDC, pause: Pause): void {
  ctx.status = 503;
  ctx.set('retry-after', String(pause.retryAfter));
  if (ctx.type !== 'text/html') ctx.body = pauseBody(pause);
}

const PROBE_MS = 2_000;

/** Readiness: the tenants' as they say, and not ready while the deployment's database does not answer. */
export function databaseReadiness(db: PgDb, tenants: ReadinessProbe): ReadinessProbe {
  return async (): Promise<Readiness> => {
    const probe = db.value('SELECT 1').then(
      () => true,
      () => false,
    );
    // A database that does not answer at all (its network gone) is as down as one that refuses.
    const [answers, of] = await Promise.all([within(probe, PROBE_MS, false), tenants()]);
    return { ready: answers && of.ready, detail: { database: answers ? 'reachable' : 'unreachable', ...of.detail } };
  };
}
