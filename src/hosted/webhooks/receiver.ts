// Each tenant's webhook endpoint, POST /webhooks/<id>: checked by the desktop's receiver (signature of the raw
// body, the five-minute window, event ids done) with the signing secret the person gave on the sign-in page,
// read from the vault. Its events go to the tenant's bus once its mirror is open, so they reach the mirror
// and, through the mirror's outbox, the tenant's subscribers in every process. An id that names no tenant, or
// a tenant without a signing secret, is refused as a wrong signature is: nothing tells which tenants exist.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerWebhookRoute, type WebhookTarget } from '../../events/receiver.js';
import type { Logger } from '../../log/logger.js';
import type { Tenants } from '../tenants/tenants.js';
import { WEBHOOK_ID, WEBHOOKS_PREFIX } from './webhook-ids.js';

export async function registerTenantWebhooks(app: FastifyInstance, tenants: Tenants, logger: Logger): Promise<void> {
  // A delivery uses its tenant (its mirror writes the event) until it is answered.
  const uses = new WeakMap<FastifyRequest, () => void>();
  app.addHook('onResponse', async (request) => uses.get(request)?.());
  const targetOf = async (request: FastifyRequest): Promise<WebhookTarget | null> => {
    const id = (request.params as { id?: string }).id ?? '';
    if (!WEBHOOK_ID.test(id)) return null;
    const keyId = await tenants.store.keyOfWebhook(id);
    const secret = keyId === undefined ? undefined : await tenants.store.webhookSecret(keyId);
    const tenant = keyId === undefined || secret === undefined ? null : await tenants.get(keyId);
    if (!tenant || secret === undefined) return null;
    uses.set(request, tenants.using(tenant.record.keyId));
    return { id: tenant.record.keyId, secret, bus: tenant.events.bus, ready: () => tenant.events.wanted() };
  };
  await registerWebhookRoute(app, { path: `${WEBHOOKS_PREFIX}/:id`, targetOf, logger });
}
