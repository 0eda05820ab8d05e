// The desktop server's businesses, each its own unit: its connection (session, pacing, cache), bus, event
// sources and mirror (its own file or Postgres schema); one from SVC_* (or the sandbox), or several from --businesses.
import { type BooksMirror, type MirrorReadiness, planBooksMirror } from '../books/books-mirror.js';
import { createEventBus } from '../events/bus.js';
import { tenantSchema } from '../hosted/tenants/tenant-mirror.js';
import type { DeferredLogger, LogSink } from '../log/deferred-logger.js';
import { type Businesses, type BusinessUnit, businessesOf } from '../mcp/businesses.js';
import { planBusinessWebhooks } from './business-webhooks.js';
import { loadBusinesses } from './businesses-file.js';
import { type Connection, connect, connectTo } from './connect.js';
import { type EventSources, planEventSources } from './event-sources.js';
import type { ServeOptions } from './serve-flags.js';
import { ConfigError, hasServiceKey, type ServiceEnv } from './service-env.js';

export interface OpenedBusiness {
  unit: BusinessUnit;
  connection: Connection;
  events: EventSources;
  mirror: BooksMirror;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/** On a server of several, each business's log lines carry its name, so an operator can tell whose they are. */
function logsOf(logs: DeferredLogger, name: string | null): DeferredLogger {
  if (name === null) return logs;
  const sink = Object.fromEntries(
    LEVELS.map((level) => [level, (obj: object, msg?: string) => logs.sink[level]({ ...obj, business: name }, msg)]),
  ) as unknown as LogSink;
  return { sink, load: async () => (await logs.load()).child({ business: name }) };
}

function openBusiness(
  name: string | null,
  connection: Connection,
  options: ServeOptions,
  logs: DeferredLogger,
  env: ServiceEnv,
  several: boolean,
): OpenedBusiness {
  const bus = createEventBus({ invalidate: (kind, id) => connection.api.invalidate(kind, id) });
  const events = planEventSources(options, connection, bus, logs.load, !several);
  // Several businesses' webhooks come to one route (business-webhooks.ts): this one's when it has a secret.
  const webhooks = several && connection.config?.webhookSecret != null && (options.transport === 'http' || options.webhookPort !== null);
  const live = events.live || webhooks;
  // On Postgres each business has a schema of its own; a file is one per key already (location.ts).
  const schema =
    several && options.mirror && POSTGRES_URL.test(options.mirror)
      ? { schema: tenantSchema(connection.api.baseUrl, connection.api.keyId) }
      : {};
  const mirror = planBooksMirror(options.mirror, connection, bus, logs.load, { eventsLive: live, env, ...schema });
  // A subscription is acknowledged once the mirror (and its outbox: on Postgres, its LISTEN) is live, so a
  // change another process writes right after is heard; a mirror that cannot open leaves events to webhooks.
  const wanted = (): Promise<void> => mirror.start().catch(() => undefined);
  const context = { api: connection.api, books: mirror.books, logger: logs.sink };
  return { unit: { name, context, events: { bus, live, wanted } }, connection, events, mirror };
}

function refuseWithBusinesses(options: ServeOptions, env: ServiceEnv): void {
  if (hasServiceKey(env))
    throw new ConfigError(
      '--businesses',
      '--businesses names every business and its key: leave SVC_KEY_ID and SVC_SECRET unset, or leave --businesses out',
    );
  if (options.mirror && !POSTGRES_URL.test(options.mirror) && !['memory', 'off'].includes(options.mirror.trim()))
    throw new ConfigError(
      '--mirror',
      '--mirror PATH names one file, and several businesses never share one: leave --mirror unset (a file per business in the cache folder), or give memory, off or a postgres:// URL (a schema per business)',
    );
  if (env.SVC_WEBHOOK_SECRET)
    throw new ConfigError(
      'SVC_WEBHOOK_SECRET',
      "with --businesses each business's webhook secret goes in its entry (webhook_secret or webhook_secret_env): leave SVC_WEBHOOK_SECRET unset",
    );
}

/** The businesses of this server, opened (nothing is read yet: each client loads on its first call). */
export async function openBusinesses(
  options: ServeOptions,
  env: ServiceEnv,
  logs: DeferredLogger,
  clientOptions: Parameters<typeof connectTo>[2],
  heard: Parameters<typeof connectTo>[3] = {},
): Promise<OpenedBusiness[]> {
  if (options.businesses === null) {
    const connection = await connect(env, logs.load, clientOptions, heard);
    return [openBusiness(null, connection, options, logs, env, false)];
  }
  refuseWithBusinesses(options, env);
  const entries = loadBusinesses(options.businesses, env);
  const several = entries.length > 1;
  return entries.map((entry) => {
    const name = several ? entry.name : null;
    const own = logsOf(logs, name);
    return openBusiness(name, connectTo(entry.config, own.load, clientOptions, heard), options, own, env, several);
  });
}

export const businessesServed = (opened: readonly OpenedBusiness[]): Businesses => businessesOf(opened.map((o) => o.unit));

/**
 * /readyz of several: ready when every business's mirror is, each one's states in the file's order. Not by
 * name: /readyz asks no token, and whose books a bookkeeper keeps is theirs to tell.
 */
export async function readinessOfAll(opened: readonly OpenedBusiness[]): Promise<MirrorReadiness> {
  const [first] = opened;
  if (opened.length === 1 && first) return first.mirror.readiness();
  const states = await Promise.all(opened.map((o) => o.mirror.readiness()));
  return { ready: states.every((s) => s.ready), detail: { businesses: states.map((s) => ({ ready: s.ready, ...s.detail })) } };
}

/** A banner line of one business, on a server of several: its name first. */
export const namedLine = (o: OpenedBusiness, line: string): string => (o.unit.name === null ? line : `${o.unit.name}: ${line}`);

/** Where every business's events come from: each one's sources, and on a server of several their one webhook route. */
export function eventsOfAll(
  opened: readonly OpenedBusiness[],
  options: ServeOptions,
  logs: DeferredLogger,
): Pick<EventSources, 'routes' | 'start' | 'close'> {
  const [sole] = opened;
  if (opened.length === 1 && sole) return sole.events;
  const webhooks = planBusinessWebhooks(options, opened, logs.load);
  return {
    routes: webhooks.routes,
    async start(mcpUrl) {
      const own = await Promise.all(opened.map(async (o) => (await o.events.start(mcpUrl)).map((line) => namedLine(o, line))));
      return [...own.flat(), ...(await webhooks.start(mcpUrl))];
    },
    async close() {
      await webhooks.close();
      for (const o of opened) await o.events.close();
    },
  };
}
