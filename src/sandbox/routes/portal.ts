// The page a customer opens from `portal_url`: a short JSON view of the invoice, no session needed.
import type { FastifyInstance } from 'fastify';
import type { World } from '../world.js';

export function registerPortalRoute(app: FastifyInstance, world: World): void {
  app.get('/portal/invoices/:token', async (request, reply) => {
    const token = (request.params as { token: string }).token;
    for (const business of world.businesses.values()) {
      const invoice = business.live.invoices.items.find((i) => i.portalToken === token);
      if (!invoice) continue;
      return {
        business: business.profile.name,
        number: invoice.number,
        status: invoice.status,
        currency: invoice.currency,
        total: invoice.total,
        balance: invoice.balance,
        due_date: invoice.due_date,
      };
    }
    return reply.code(404).send({ message: 'No invoice at this link.' });
  });
}
