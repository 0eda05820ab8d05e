// A key that stops working (the service refuses its sign-in with 401 or 403: revoked, regenerated,
// suspended, or the plan without the API) ends its grants: every grant made with it is revoked with its
// tokens, the key is forgotten (its secret leaves the vault), and the audit log says why, in the service's
// words. The client's next request gets 401 with a challenge that sends the person to sign in again.

import type { Logger } from '../../log/logger.js';
import type { PgDb } from '../../store/postgres/db.js';
import { revokeGrants } from '../oauth/adapter.js';
import type { GrantLog } from './grant-log.js';
import type { TenantRecord } from './tenant-store.js';
import type { Tenants } from './tenants.js';

export interface EndKeyDeps {
  db: PgDb;
  grantLog: GrantLog;
  tenants: () => Tenants;
  logger: Logger;
  /** Drops this process's checked tokens of these grants. */
  forgetGrants: (grantIds: readonly string[]) => void;
}

/** What to call when a tenant's sign-in is refused; one ending at a time per key in this process. */
export function keyEnder(deps: EndKeyDeps): (record: TenantRecord, words: string) => void {
  const ending = new Set<string>();
  return (record, words) => {
    if (ending.has(record.keyId)) return;
    ending.add(record.keyId);
    void (async () => {
      const grants = await deps.grantLog.grantsOf(record.keyId);
      await revokeGrants(deps.db, grants);
      deps.forgetGrants(grants);
      await deps.tenants().forget(record.keyId);
      await deps.grantLog.add({
        event: 'ended',
        grantId: null,
        clientId: null,
        keyId: record.keyId,
        businessId: record.businessId,
        detail: words,
      });
      deps.logger.warn(
        { keyId: record.keyId, businessId: record.businessId, grants: grants.length },
        'a key stopped working: its grants are ended',
      );
    })()
      .catch((err: unknown) =>
        deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'could not end the grants of a key'),
      )
      .finally(() => ending.delete(record.keyId));
  };
}
