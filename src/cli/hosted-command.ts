// `invoicing-mcp --hosted` (over HTTP): many businesses on one deployment, each person signing in with their
// business's own key (MCP authorization). No key in the environment; the desktop paths are not involved.
import { deferredLogger } from '../log/deferred-logger.js';
import { createNoticeBoard } from '../log/notices.js';
import { planBooksMirror } from './books-mirror.js';
import { loadHostedConfig } from './hosted-config.js';
import type { ServeOptions } from './serve-flags.js';
import type { ServiceEnv } from './service-env.js';

export async function runHostedServe(options: ServeOptions, env: ServiceEnv, stderr: (text: string) => void): Promise<void> {
  const config = loadHostedConfig(options, env);
  const logs = deferredLogger({ level: options.logLevel, notices: createNoticeBoard() });
  const logger = await logs.load();
  const [{ startHosted }, { serveHttp }] = await Promise.all([import('../hosted/serve-hosted.js'), import('../mcp/serve-http.js')]);
  const hosted = await startHosted(
    {
      resource: config.resource,
      mirrorUrl: config.mirrorUrl,
      serviceUrl: config.serviceUrl,
      vaultKey: config.vaultKey,
      clientsFile: config.clientsFile,
      // A tenant's mirror opens on its first answer, or when it is started (a subscription or a webhook).
      planMirror: (api, bus, place) =>
        planBooksMirror(config.mirrorUrl, { api, sandbox: null, config: { pollSeconds: config.pollSeconds } }, bus, logs.load, {
          eventsLive: true,
          ...place,
        }),
      selection: { readOnly: options.readOnly, toolsets: options.toolsets },
      confirmWrites: options.confirmWrites,
      grantRequestsPerMinute: options.grantRateLimit,
      tenantIdleMs: options.tenantIdleMinutes * 60_000,
      serviceSignInsPerMinute: options.serviceSignIns,
      clientOptions: {
        ...(options.maxConcurrency === null ? {} : { maxConcurrent: options.maxConcurrency }),
        ...(options.retryBudgetMs === null ? {} : { retryBudgetMs: options.retryBudgetMs }),
      },
    },
    logger,
    logs.sink,
  );
  // The public name is ours, and so is the sign-in page's origin (its forms post back to it).
  const publicHost = new URL(config.resource).hostname;
  const http = await serveHttp(hosted.factory, {
    ...options,
    allowedHosts: [...options.allowedHosts, publicHost],
    allowedOrigins: [...options.allowedOrigins, publicHost],
    logger: logs.sink,
    events: null,
    resourceServer: hosted.resourceServer,
    readiness: hosted.readiness,
  });
  stderr(
    `invoicing-mcp: hosted MCP server at ${config.resource} (listening on ${http.url}); people sign in with their business's key on the service at ${config.serviceUrl}.`,
  );
  let stopping = false;
  const shutdown = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await http.drain(options.drainTimeoutMs).catch(() => undefined);
    await http.close().catch(() => undefined);
    await hosted.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}
