// Each tenant's books mirror: the Postgres mirror of the desktop and --http, on the deployment's database, in
// a schema of the tenant's own (named from a digest of the service and key, as a mirror file's name is).
// Its rows, its sync lease and its event channel are keyed by that schema, so the processes of one
// deployment share each tenant's mirror, and no tenant's answers read another's rows. The tenants of a
// process share its connections (SharedPostgres). The command plans each one as it plans the desktop's
// (opened on the tenant's first answer, subscription or webhook, then synced every SVC_POLL_SECONDS) and hands
// that in.
import { createHash } from 'node:crypto';
import type { ApiClient } from '../../api/client.js';
import type { EventBus } from '../../events/bus.js';
import type { Readiness } from '../../http/health.js';
import { mirrorIdentity } from '../../store/location.js';
import type { SharedPostgres } from '../../store/postgres/shared.js';
import type { Books } from '../../store/types.js';

/** What a tenant holds of its mirror: the Books its answer tools read, its start and its end. */
export interface TenantBooks {
  readonly books: Books | null;
  /** True when it syncs in the background, so its diffs feed the bus on their own. */
  readonly syncing: boolean;
  /** Opens it now (a subscription or a webhook needs its events): its sync and its outbox start. */
  start(): Promise<void>;
  /** Its state for /readyz (no key, no business): open, opening, not opened or unavailable, and whether its store answers. */
  readiness(): Promise<Readiness>;
  close(): Promise<void>;
}

/** Where a tenant's mirror lives on the deployment's database. */
export interface TenantMirrorPlace {
  schema: string;
  shared: SharedPostgres;
}

export type PlanTenantMirror = (api: ApiClient, bus: EventBus, place: TenantMirrorPlace) => TenantBooks;

/** The schema of a key's mirror: `invoicing_mcp_k_` and the first 16 hex digits of a digest of service and key. */
export function tenantSchema(baseUrl: string, keyId: string): string {
  return `invoicing_mcp_k_${createHash('sha256').update(mirrorIdentity(baseUrl, keyId)).digest('hex').slice(0, 16)}`;
}
