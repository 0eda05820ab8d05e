// /healthz (the process answers) and /readyz (it can serve: not stopping, and what it stands on answers) for
// a load balancer or an orchestrator. Neither needs the bearer token nor passes the Host check, so neither
// may say anything secret: only states and booleans.
import type { FastifyInstance } from 'fastify';

export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
export const isHealthPath = (url: string): boolean => HEALTH_PATHS.has(url.split('?')[0] ?? url);

/** What readiness depends on besides draining: `ready` false makes /readyz answer 503. */
export interface Readiness {
  ready: boolean;
  /** States only (no path, key or secret): shown as they are. */
  detail: Record<string, unknown>;
}

export type ReadinessProbe = () => Promise<Readiness>;

export function registerHealthRoutes(app: FastifyInstance, probe: ReadinessProbe, draining: () => boolean): void {
  app.get('/healthz', async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'alive' }));
  app.get('/readyz', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    if (draining()) return reply.code(503).send({ status: 'draining' });
    const { ready, detail } = await probe();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', ...detail });
  });
}
