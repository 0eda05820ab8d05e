// Each tenant's books mirror: the Postgres mirror of the desktop and --http, on the deployment's database, in
// a schema of the tenant's own (named from a digest of the service and key, as a mirror file's name is).
// Its rows, its sync lease and its event channel are keyed by that schema, so the processes of one
// deployment share each tenant's mirror, and no tenant's answers read another's rows. The tenants of a
// process share its connections (SharedPostgres). Opened on the tenant's first answer; then synced in the
// background every SVC_POLL_SECONDS, as on the desktop.
import { createHash } from 'node:crypto';
import type { ApiClient } from '../../api/client.js';
import { mirrorIdentity } from '../../books/location.js';
import type { SharedPostgres } from '../../books/postgres/shared.js';
import { type BooksMirror, planBooksMirror } from '../../cli/books-mirror.js';
import type { EventBus } from '../../events/bus.js';
import type { Logger } from '../../log/logger.js';

/** The schema of a key's mirror: `invoicing_mcp_k_` and the first 16 hex digits of a digest of service and key. */
export function tenantSchema(baseUrl: string, keyId: string): string {
  return `invoicing_mcp_k_${createHash('sha256').update(mirrorIdentity(baseUrl, keyId)).digest('hex').slice(0, 16)}`;
}

export interface TenantMirrorSettings {
  shared: SharedPostgres;
  logger: Logger;
  /** The longest gap between background syncs; 0 = only when an answer asks. */
  pollSeconds: number;
}

export function planTenantMirror(api: ApiClient, bus: EventBus, { shared, logger, pollSeconds }: TenantMirrorSettings): BooksMirror {
  return planBooksMirror(shared.url, { api, sandbox: null, config: { pollSeconds } }, bus, async () => logger, {
    eventsLive: false,
    schema: tenantSchema(api.baseUrl, api.keyId),
    shared,
  });
}
