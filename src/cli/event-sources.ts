// Where the server's events come from. With keys: the service's signed webhooks when SVC_WEBHOOK_SECRET is
// set (to /webhooks beside /mcp in HTTP mode, to a listener of their own with --webhook-port in stdio
// mode), and the books mirror's sync (books/books-mirror.ts) unless SVC_POLL_SECONDS=0: its diffs are the
// events. On the embedded sandbox, neither: its books change only through the model's own creates.
// Subscriptions are offered only when something feeds the bus.
import type { FastifyInstance } from 'fastify';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log/logger.js';
import type { Connection } from './connect.js';
import type { ServeOptions } from './serve-flags.js';
import { ConfigError } from './service-env.js';

export interface EventSources {
  /** True when webhooks or the mirror's background sync feed the bus. */
  readonly live: boolean;
  /** HTTP mode with a webhook secret: adds /webhooks to the server's app before it listens. */
  readonly routes: ((app: FastifyInstance) => Promise<void>) | undefined;
  /** Starts the stdio-mode listener once the server serves; resolves with lines for the banner. */
  start(mcpUrl: string | null): Promise<string[]>;
  close(): Promise<void>;
}

const NO_SECRET_FOR_PORT =
  '--webhook-port needs SVC_WEBHOOK_SECRET, the signing secret the service gave when the webhook endpoint was registered: without it no delivery can be checked';
const NO_SERVICE_FOR_PORT =
  '--webhook-port needs the service: the built-in sandbox sends this server no webhooks. Set SVC_BASE_URL, SVC_KEY_ID, SVC_SECRET and SVC_WEBHOOK_SECRET';

export function planEventSources(
  options: ServeOptions,
  connection: Connection,
  bus: EventBus,
  loadLogger: () => Promise<Logger>,
  /** False on a server of several businesses, whose webhooks come to one route for all (business-webhooks.ts). */
  ownWebhooks = true,
): EventSources {
  const secret = ownWebhooks ? (connection.config?.webhookSecret ?? null) : null;
  const pollSeconds = connection.config?.pollSeconds ?? 0;
  if (ownWebhooks && options.webhookPort !== null && secret === null) {
    throw new ConfigError('--webhook-port', connection.sandbox ? NO_SERVICE_FOR_PORT : NO_SECRET_FOR_PORT);
  }
  const ownListener = options.transport === 'stdio' && secret !== null && options.webhookPort !== null;
  const besideMcp = options.transport === 'http' && secret !== null;
  const closers: (() => Promise<void>)[] = [];

  const routes = besideMcp
    ? async (app: FastifyInstance): Promise<void> => {
        const { registerWebhookRoute } = await import('../events/receiver.js');
        await registerWebhookRoute(app, { secret: secret as string, bus, logger: await loadLogger() });
      }
    : undefined;

  async function start(mcpUrl: string | null): Promise<string[]> {
    const lines: string[] = [];
    if (besideMcp && mcpUrl) lines.push(`Webhooks: register ${mcpUrl.replace(/\/mcp$/, '/webhooks')} as the service's webhook endpoint.`);
    if (ownListener) {
      const { startWebhookListener } = await import('../events/receiver.js');
      const where = `${options.webhookHost}:${options.webhookPort}`;
      const listener = await startWebhookListener({
        host: options.webhookHost,
        port: options.webhookPort as number,
        limits: options.limits,
        secret: secret as string,
        bus,
        logger: await loadLogger(),
      }).catch((err: unknown) => {
        throw new Error(`the webhook listener cannot listen on ${where}: ${err instanceof Error ? err.message : String(err)}`);
      });
      closers.push(listener.close);
      lines.push(
        `Webhooks: register ${listener.url} as the service's webhook endpoint (through a tunnel or proxy if the service cannot reach this machine).`,
      );
    } else if (options.transport === 'stdio' && secret !== null) {
      lines.push('Webhooks: SVC_WEBHOOK_SECRET is set but no --webhook-port is given, so no webhook is received.');
    }
    if (!connection.sandbox && pollSeconds === 0 && secret === null) {
      lines.push('Events: no SVC_WEBHOOK_SECRET and SVC_POLL_SECONDS=0, so resource subscriptions are not offered.');
    }
    return lines;
  }

  return {
    live: besideMcp || ownListener || pollSeconds > 0,
    routes,
    start,
    close: async () => {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}
