// What the deployment answers while its database cannot be reached: the authorization server's endpoints a
// 503 with Retry-After (a token request is retried, not taken for a refusal), and /readyz not ready, whether or
// not a tenant is loaded (right after a restart none is, and nothing else would notice).
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { PgDb } from '../../books/postgres/db.js';
import { RETRY_AFTER_SECONDS } from '../../books/postgres/unreachable.js';
import type { Readiness, ReadinessProbe } from '../../http/health.js';

/** Turns the provider's server error into a 503 with Retry-After; a JSON body says so in OAuth's words. */
export function briefly(ctx: KoaContextWithOIDC): void {
  ctx.status = 503;
  ctx.set('retry-after', String(RETRY_AFTER_SECONDS));
  if (ctx.type !== 'text/html')
    ctx.body = {
      error: 'temporarily_unavailable',
      error_description: `the database is briefly unreachable; retry in ${RETRY_AFTER_SECONDS} s`,
    };
}

const PROBE_MS = 2_000;

/** Readiness: the tenants' as they say, and not ready while the deployment's database does not answer. */
export function databaseReadiness(db: PgDb, tenants: ReadinessProbe): ReadinessProbe {
  return async (): Promise<Readiness> => {
    let timer: NodeJS.Timeout | undefined;
    // A database that does not answer at all (its network gone) is as down as one that refuses.
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_MS)));
    const probe = db.value('SELECT 1').then(
      () => true,
      () => false,
    );
    const [answers, of] = await Promise.all([Promise.race([probe, late]), tenants()]).finally(() => clearTimeout(timer));
    return { ready: answers && of.ready, detail: { database: answers ? 'reachable' : 'unreachable', ...of.detail } };
  };
}
