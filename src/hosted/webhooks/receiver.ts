// Each tenant's webhook endpoint, POST /webhooks/<id>, checked by the desktop's receiver with the signing secret
// the person gave on the sign-in page. The checks: the signature of the raw body, the five-minute window, event
// ids done. The secret is kept in memory while its tenant is live (tenants.ts says when it is read again from
// the vault). Its events go to the tenant's bus once its mirror is open, so they reach the mirror and the
// tenant's subscribers. An id that names no tenant, or a tenant without a signing secret, is refused as a wrong
// signature is: nothing tells which tenants exist.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerWebhookRoute, type WebhookTarget } from '../../events/receiver.js';
import type { Logger } from '../../log/logger.js';
import type { Tenants } from '../tenants/tenants.js';
import { WEBHOOK_ID, WEBHOOKS_PREFIX } from './webhook-ids.js';

export async function registerTenantWebhooks(app: FastifyInstance, tenants: Tenants, logger: Logger): Promise<void> {
  // A delivery uses its tenant (its mirror writes the event) until it is answered: from `ready`, which the
  // receiver asks for only once the signature holds, so forged deliveries keep no tenant from resting.
  const uses = new WeakMap<FastifyRequest, () => void>();
  app.addHook('onResponse', async (request) => uses.get(request)?.());
  const targetOf = async (request: FastifyRequest): Promise<WebhookTarget | null> => {
    const id = (request.params as { id?: string }).id ?? '';
    const target = tenants.keptTarget(id) ?? (WEBHOOK_ID.test(id) ? await tenants.loadTarget(id) : null);
    if (!target) return null;
    return {
      ...target,
      ready: async () => {
        uses.set(request, tenants.using(target.id));
        await target.ready?.();
      },
    };
  };
  await registerWebhookRoute(app, { path: `${WEBHOOKS_PREFIX}/:id`, targetOf, logger });
}
