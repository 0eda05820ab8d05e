// `invoicing-mcp` (stdio) and `invoicing-mcp --http`: the MCP server on the service or the sandbox.
import type { Readable, Writable } from 'node:stream';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { deferredLogger, type LogSink } from '../log/deferred-logger.js';
import type { LoggerOptions } from '../log/logger.js';
import { createNoticeBoard } from '../log/notices.js';
import { heardFromAll } from '../mcp/businesses.js';
import { forwardNotices } from '../mcp/forward-notices.js';
import { KeyScopes } from '../mcp/key-scopes.js';
import { legacyResourceNotFound } from '../mcp/legacy-error-codes.js';
import { createServerFactory } from '../mcp/server.js';
import { reportingFactory, sdkErrorReporter } from '../transports/sdk-errors.js';
import { businessesServed, eventsOfAll, namedLine, type OpenedBusiness, openBusinesses, readinessOfAll } from './business-units.js';
import { parseServeOptions, type ServeOptions } from './serve-flags.js';
import type { ServiceEnv } from './service-env.js';
import { type WhenQuiet, watchHttp, watchStdio, whenQuiet } from './when-quiet.js';

/**
 * How a client starts this server, for the banner. Run by npx, the script lives in npx's temporary cache,
 * which a client config must not name: offer the npx form instead.
 */
export function clientLaunch(entry: string, env: ServiceEnv): { command: string; args: string[] } {
  const viaNpx = env.npm_command === 'exec' || /[\\/]_npx[\\/]/.test(entry);
  return viaNpx ? { command: 'npx', args: ['-y', 'invoicing-mcp'] } : { command: 'node', args: [entry] };
}

function banner(options: ServeOptions, opened: readonly OpenedBusiness[], httpUrl: string | null, env: ServiceEnv): string {
  const [first] = opened;
  const connection = first?.connection;
  const where = connection?.sandbox
    ? 'on the built-in sandbox in test mode (sample books; no keys set, nothing real is read or changed)'
    : opened.length > 1
      ? `for ${opened.length} businesses (${opened.map((o) => `${o.unit.name} on ${o.connection.api.baseUrl} with key ${o.connection.api.keyId}, ${o.connection.api.mode} mode`).join('; ')})`
      : `on ${connection?.api.baseUrl} with key ${connection?.api.keyId} (${connection?.api.mode} mode)`;
  const how = httpUrl ? `Streamable HTTP at ${httpUrl}${options.httpToken ? ' (send Authorization: Bearer <token>)' : ''}` : 'stdio';
  const lines = [`invoicing-mcp: MCP server over ${how}, ${where}.`];
  if (!httpUrl) {
    const launch = JSON.stringify(clientLaunch(process.argv[1] ?? 'dist/bin/invoicing-mcp.mjs', env)).slice(1, -1);
    lines.push(
      `Connect a client: {"mcpServers": {"invoicing": {${launch}}}} (add "env" with SVC_BASE_URL, SVC_KEY_ID, SVC_SECRET for real books)`,
    );
  }
  return lines.join('\n');
}

/** A server started by `startServe`: where it listens (HTTP) and how to stop it. */
export interface Serving {
  /** The URL of /mcp over HTTP; null over stdio. */
  readonly url: string | null;
  /** Drains and stops what serves, the mirror and the connection to the service; once, whoever asks. */
  stop(): Promise<void>;
}

export interface ServeIo {
  stderr: (text: string) => void;
  /** Where log lines go: stderr (fd 2) unless given. */
  logDestination?: LoggerOptions['destination'];
  /** Told once the server has stopped because its stdio client closed stdin. */
  onClientGone?: () => void;
  /** Over stdio, the streams the client speaks on: the process's own unless given. */
  stdin?: Readable;
  stdout?: Writable;
}

export async function runServe(argv: string[], env: ServiceEnv, stderr: (text: string) => void): Promise<void> {
  const options = parseServeOptions(argv, env);
  if (options.hosted) {
    const { runHostedServe } = await import('./hosted-command.js');
    return runHostedServe(options, env, stderr);
  }
  // The client closing our stdin ends the session: exit, so the process does not linger.
  const serving = await startServe(options, env, { stderr, onClientGone: () => process.exit(0) });
  const shutdown = () => void serving.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

/**
 * The businesses, opened, and their keys' scopes: learned at the first sign-in (the background one once the
 * server is quiet, or a call's before it). The built-in sandbox's test key may do everything: nothing to learn.
 */
async function openWithScopes(options: ServeOptions, env: ServiceEnv, logs: ReturnType<typeof deferredLogger>) {
  const scopesOfKeys = new KeyScopes();
  const learnScopes = (): Promise<void> => scopesOfKeys.learn(opened.map((o) => o.connection.api));
  const opened: OpenedBusiness[] = await openBusinesses(
    options,
    env,
    logs,
    { maxConcurrent: options.maxConcurrency, ...(options.retryBudgetMs === null ? {} : { retryBudgetMs: options.retryBudgetMs }) },
    { onKeyAccepted: () => void learnScopes().catch(() => undefined) },
  );
  const keyScopes = opened.some((o) => o.connection.sandbox) ? undefined : scopesOfKeys;
  return { opened, keyScopes, learnScopes };
}

/** The server factory, each instance forwarding the notices and naming a missing resource in its era's code. */
async function serverFactoryOf(
  businesses: ReturnType<typeof businessesServed>,
  options: ServeOptions,
  notices: ReturnType<typeof createNoticeBoard>,
  keyScopes: KeyScopes | undefined,
) {
  const makeServer = await createServerFactory(businesses, {
    selection: { readOnly: options.readOnly, toolsets: options.toolsets },
    confirmWrites: options.confirmWrites,
    ...(keyScopes ? { keyScopes } : {}),
  });
  const factory: typeof makeServer = (unit) => {
    const server = makeServer(unit);
    forwardNotices(server, unit, notices);
    legacyResourceNotFound(server, unit);
    return server;
  };
  return factory;
}

/**
 * The server of `invoicing-mcp` and `invoicing-mcp --http`, without the process around it: no signal
 * handlers and no exit, so that the HTTP server can also run inside another process (the end-to-end tests).
 */
export async function startServe(options: ServeOptions, env: ServiceEnv, io: ServeIo): Promise<Serving> {
  const { stderr } = io;
  const notices = createNoticeBoard();
  const logs = deferredLogger({ level: options.logLevel, notices, ...(io.logDestination ? { destination: io.logDestination } : {}) });
  const logger = logs.sink;
  const { opened, keyScopes, learnScopes } = await openWithScopes(options, env, logs);
  const businesses = businessesServed(opened);
  const events = eventsOfAll(opened, options, logs);
  const live = opened.some((o) => o.unit.events.live);
  const factory = await serverFactoryOf(businesses, options, notices, keyScopes);
  let stop: () => Promise<void>;
  // HTTP: new requests get 503 while the calls in flight finish and open streams end with a retry hint.
  let drain = async (): Promise<void> => undefined;
  // Counts the server's traffic, so the mirror opens once the first requests are answered; stops counting then.
  let watch: (quiet: WhenQuiet) => () => void;
  let background: WhenQuiet | null = null;
  let eventLines: string[];
  let url: string | null = null;
  if (options.transport === 'http') {
    const { serveHttp } = await import('../transports/serve-http.js');
    const http = await serveHttp(factory, {
      ...options,
      logger,
      events: live ? heardFromAll(businesses) : null,
      eventsWanted: async () => void (await Promise.all(opened.map((o) => o.unit.events.wanted?.()))),
      extraRoutes: events.routes,
      readiness: () => readinessOfAll(opened),
    });
    watch = (quiet) => watchHttp(http.app.server, quiet);
    url = http.url;
    stderr(banner(options, opened, http.url, env));
    eventLines = await events.start(http.url);
    drain = () => http.drain(options.drainTimeoutMs);
    stop = () => http.close();
  } else {
    const { LineStdioTransport } = await import('../transports/stdio-transport.js');
    const { throttledLog } = await import('../log/throttle.js');
    // The webhook listener listens before the client is answered: a subscription is never acknowledged
    // while what feeds it is still starting.
    eventLines = await events.start(null);
    const stdin = io.stdin ?? process.stdin;
    const transport = new LineStdioTransport(throttledLog(logger), stdin, io.stdout);
    const report = sdkErrorReporter(logger);
    const instance = reportingFactory(factory, report);
    const handle = serveStdio((ctx) => instance({ era: ctx.era, lifetime: 'connection' }), { transport, onerror: report });
    stderr(banner(options, opened, null, env));
    stop = () => handle.close();
    watch = (quiet) => watchStdio(transport, stdin, quiet);
    const clientGone = () => void shutdown().then(() => io.onClientGone?.());
    stdin.once('end', clientGone);
    stdin.once('close', clientGone);
  }
  let stopped: Promise<void> | null = null;
  const shutdown = (): Promise<void> =>
    (stopped ??= (async () => {
      background?.cancel();
      await drain().catch(() => undefined);
      await events.close();
      await Promise.all(opened.map((o) => o.mirror.close().catch(() => undefined)));
      await stop().catch(() => undefined);
      await Promise.all(opened.map((o) => o.connection.close().catch(() => undefined)));
    })());
  const serving: Serving = { url, stop: shutdown };
  stderr([...eventLines, ...opened.map((o) => namedLine(o, o.mirror.line))].join('\n'));
  if (stopped) return serving;
  background = backgroundWhenQuiet(opened, watch, stderr, keyScopes && learnScopes, logger);
  return serving;
}

/**
 * Once the server's first requests are answered (counted by `watch`): signs the keys in to learn their scopes
 * (what they cannot use is withdrawn), and opens the mirrors that open at start. Null when there is neither: a
 * mirror that does not open at start has nothing to wait for, a tool's first question opens it.
 */
function backgroundWhenQuiet(
  opened: readonly OpenedBusiness[],
  watch: (quiet: WhenQuiet) => () => void,
  stderr: (text: string) => void,
  learnScopes: (() => Promise<void>) | undefined,
  logger: LogSink,
): WhenQuiet | null {
  const atStart = opened.filter((o) => o.mirror.opensAtStart);
  // SVC_POLL_SECONDS=0 turns the server's own calls off: the scopes are then learnt at a call's sign-in.
  const learn = opened.some((o) => (o.connection.config?.pollSeconds ?? 0) > 0) ? learnScopes : undefined;
  if (atStart.length === 0 && !learn) return null;
  let unwatch = (): void => undefined;
  const background = whenQuiet(() => {
    unwatch();
    // An unreachable service or a refused key leaves every tool offered: their calls say what is wrong.
    void learn?.().catch((err: unknown) =>
      logger.debug({ err: err instanceof Error ? err.message : String(err) }, "key's scopes not learned"),
    );
    for (const o of atStart) {
      const said = (err: unknown) =>
        `Mirror: could not be started (${err instanceof Error ? err.message : String(err)}); tools read the service directly.`;
      void o.mirror.start().catch((err: unknown) => stderr(namedLine(o, said(err))));
    }
  });
  unwatch = watch(background);
  return background;
}
