// Webhooks of several businesses: one route, /webhooks/{business}, each delivery checked with its business's own
// secret and published on its own bus (beside /mcp over --http, on the --webhook-port listener over stdio).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebhookTarget } from '../events/receiver.js';
import type { Logger } from '../log/logger.js';
import type { BusinessUnit } from '../mcp/businesses.js';
import type { Connection } from './connect.js';
import type { ServeOptions } from './serve-flags.js';
import { ConfigError } from './service-env.js';

const PATH = '/webhooks/:business';

export interface BusinessWebhook {
  unit: BusinessUnit;
  connection: Connection;
}

export interface BusinessWebhooks {
  readonly routes: ((app: FastifyInstance) => Promise<void>) | undefined;
  start(mcpUrl: string | null): Promise<string[]>;
  close(): Promise<void>;
}

export function planBusinessWebhooks(
  options: ServeOptions,
  businesses: readonly BusinessWebhook[],
  loadLogger: () => Promise<Logger>,
): BusinessWebhooks {
  const signed = businesses.filter((b) => b.connection.config?.webhookSecret);
  if (options.webhookPort !== null && signed.length === 0)
    throw new ConfigError(
      '--webhook-port',
      '--webhook-port needs a webhook_secret (or webhook_secret_env) on at least one business of --businesses',
    );
  const targetOf = async (request: FastifyRequest): Promise<WebhookTarget | null> => {
    const name = (request.params as { business?: string }).business?.toLowerCase();
    const found = signed.find((b) => b.unit.name?.toLowerCase() === name);
    if (!found?.unit.name || !found.connection.config?.webhookSecret) return null;
    const { events } = found.unit;
    return {
      id: found.unit.name,
      secret: found.connection.config.webhookSecret,
      bus: events.bus,
      ...(events.wanted ? { ready: events.wanted } : {}),
    };
  };
  const register = async (app: FastifyInstance): Promise<void> => {
    const { registerWebhookRoute } = await import('../events/receiver.js');
    await registerWebhookRoute(app, { path: PATH, targetOf, logger: await loadLogger() });
  };
  const closers: (() => Promise<void>)[] = [];
  const linesFor = (base: string): string[] =>
    signed.map(
      (b) => `${b.unit.name}: webhooks: register ${base}/${encodeURIComponent(b.unit.name ?? '')} as the service's webhook endpoint.`,
    );
  return {
    routes: options.transport === 'http' && signed.length > 0 ? register : undefined,
    async start(mcpUrl) {
      if (mcpUrl && options.transport === 'http') return linesFor(mcpUrl.replace(/\/mcp$/, '/webhooks'));
      if (options.webhookPort === null)
        return signed.length > 0 ? ['Webhooks: webhook_secret is set but no --webhook-port is given, so no webhook is received.'] : [];
      const { startWebhookListener } = await import('../events/receiver.js');
      const listener = await startWebhookListener({
        host: options.webhookHost,
        port: options.webhookPort,
        limits: options.limits,
        path: PATH,
        targetOf,
        logger: await loadLogger(),
      });
      closers.push(listener.close);
      return linesFor(listener.url);
    },
    close: async () => {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}
