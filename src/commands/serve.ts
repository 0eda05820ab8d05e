// `invoicing-mcp` (stdio) and `invoicing-mcp --http`: the MCP server on the service or the sandbox.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ServiceEnv } from '../config.js';
import { deferredLogger } from '../deferred-logger.js';
import { createEventBus } from '../events/bus.js';
import { createServerFactory } from '../mcp/server.js';
import { parseServeOptions, type ServeOptions } from '../serve-options.js';
import { connect, type Connection } from './connect.js';
import { planEventSources } from './event-sources.js';

function banner(options: ServeOptions, connection: Connection, httpUrl: string | null): string {
  const where = connection.sandbox
    ? 'on the built-in sandbox in test mode (sample books; no keys set, nothing real is read or changed)'
    : `on ${connection.api.baseUrl} with key ${connection.api.keyId} (${connection.api.mode} mode)`;
  const how = httpUrl
    ? `Streamable HTTP at ${httpUrl}${options.httpToken ? ' (send Authorization: Bearer <token>)' : ''}`
    : 'stdio';
  const lines = [`invoicing-mcp: MCP server over ${how}, ${where}.`];
  if (!httpUrl) {
    const entry = process.argv[1] ?? 'dist/bin/invoicing-mcp.mjs';
    lines.push(
      `Connect a client: {"mcpServers": {"invoicing": {"command": "node", "args": [${JSON.stringify(entry)}]}}} (add "env" with SVC_BASE_URL, SVC_KEY_ID, SVC_SECRET for real books)`,
    );
  }
  return lines.join('\n');
}

export async function runServe(argv: string[], env: ServiceEnv, stderr: (text: string) => void): Promise<void> {
  const options = parseServeOptions(argv, env);
  const logs = deferredLogger({ level: options.logLevel });
  const logger = logs.sink;
  const connection = await connect(env, logs.load, { maxConcurrent: options.maxConcurrency });
  const bus = createEventBus({ invalidate: (kind, id) => connection.api.invalidate(kind, id) });
  const events = planEventSources(options, connection, bus, logs.load);
  const factory = await createServerFactory(
    { api: connection.api, logger },
    {
      selection: { readOnly: options.readOnly, toolsets: options.toolsets },
      confirmWrites: options.confirmWrites,
      events: { bus, live: events.live },
    },
  );
  let stop: () => Promise<void>;
  let mcpUrl: string | null = null;
  if (options.transport === 'http') {
    const { serveHttp } = await import('../mcp/http.js');
    const http = await serveHttp(factory, { ...options, events: events.live ? bus : null, extraRoutes: events.routes });
    mcpUrl = http.url;
    stderr(banner(options, connection, http.url));
    stop = () => http.close();
  } else {
    const handle = serveStdio((ctx) => factory({ era: ctx.era, lifetime: 'connection' }), { onerror: (err) => logger.warn({ err }, 'stdio transport error') });
    stderr(banner(options, connection, null));
    stop = () => handle.close();
    // The client closing our stdin ends the session: stop, so the process does not linger.
    process.stdin.once('end', () => void shutdown());
    process.stdin.once('close', () => void shutdown());
  }
  let stopping = false;
  const shutdown = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await events.close();
    await stop().catch(() => undefined);
    await connection.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  const lines = await events.start(mcpUrl);
  if (lines.length > 0) stderr(lines.join('\n'));
}
