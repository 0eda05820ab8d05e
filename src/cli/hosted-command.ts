// `invoicing-mcp --hosted` (over HTTP): many businesses on one deployment, each person signing in with their
// business's own key (MCP authorization). No key in the environment; the desktop paths are not involved.

import { planBooksMirror } from '../books/books-mirror.js';
import type { Timers } from '../core/timers.js';
import type { HostedServing } from '../hosted/serve-hosted.js';
import { deferredLogger } from '../log/deferred-logger.js';
import type { LoggerOptions } from '../log/logger.js';
import { createNoticeBoard } from '../log/notices.js';
import { loadHostedConfig } from './hosted-config.js';
import type { ServeOptions } from './serve-flags.js';
import type { ServiceEnv } from './service-env.js';

export interface HostedIo {
  stderr: (text: string) => void;
  /** Where log lines go: stderr (fd 2) unless given. */
  logDestination?: LoggerOptions['destination'];
  /** The clock of the tenants' key confirmations (ms since the epoch); the real one unless given. */
  now?: () => number;
  /** The timers of the key confirmations while a tenant is in use; real ones unless given. */
  timers?: Timers;
  /** How long a tenant goes unused before its mirror rests, in ms: --tenant-idle-minutes unless given. */
  tenantIdleMs?: number;
}

export type { HostedServing };

export async function runHostedServe(options: ServeOptions, env: ServiceEnv, stderr: (text: string) => void): Promise<void> {
  const serving = await startHostedServe(options, env, { stderr });
  const shutdown = (): void => void serving.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

/** The hosted server without the process around it: no signal handler, no exit. */
export async function startHostedServe(options: ServeOptions, env: ServiceEnv, io: HostedIo): Promise<HostedServing> {
  const { stderr } = io;
  const config = loadHostedConfig(options, env);
  const logs = deferredLogger({
    level: options.logLevel,
    notices: createNoticeBoard(),
    ...(io.logDestination ? { destination: io.logDestination } : {}),
  });
  const logger = await logs.load();
  const { serveHosted } = await import('../hosted/serve-hosted.js');
  const serving = await serveHosted(
    {
      resource: config.resource,
      mirrorUrl: config.mirrorUrl,
      serviceUrl: config.serviceUrl,
      vaultKey: config.vaultKey,
      clientsFile: config.clientsFile,
      clientIdDocuments: options.clientIdDocuments,
      // A tenant's mirror opens on its first answer, or when it is started (a subscription or a webhook).
      planMirror: (api, bus, place) =>
        planBooksMirror(config.mirrorUrl, { api, sandbox: null, config: { pollSeconds: config.pollSeconds } }, bus, logs.load, {
          eventsLive: true,
          ...place,
        }),
      selection: { readOnly: options.readOnly, toolsets: options.toolsets },
      confirmWrites: options.confirmWrites,
      grantRequestsPerMinute: options.grantRateLimit,
      tenantIdleMs: io.tenantIdleMs ?? options.tenantIdleMinutes * 60_000,
      serviceSignInsPerMinute: options.serviceSignIns,
      registrationsPerHour: options.registrationsPerHour,
      clientOptions: {
        ...(options.maxConcurrency === null ? {} : { maxConcurrent: options.maxConcurrency }),
        ...(options.retryBudgetMs === null ? {} : { retryBudgetMs: options.retryBudgetMs }),
      },
      ...(io.now ? { now: io.now } : {}),
      ...(io.timers ? { timers: io.timers } : {}),
    },
    options,
    logger,
    logs.sink,
  );
  stderr(
    `invoicing-mcp: hosted MCP server at ${config.resource} (listening on ${serving.url}); people sign in with their business's key on the service at ${config.serviceUrl}.`,
  );
  return serving;
}
