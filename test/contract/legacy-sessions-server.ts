// A plain node:http server in front of LegacySessions (the 2025-era session path alone), on the test
// sandbox with a live key: what the session contract tests stand on.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../../src/api/index.js';
import { createEventBus, type EventBus } from '../../src/events/bus.js';
import { createServerFactory } from '../../src/mcp/server.js';
import { type LegacySessionOptions, LegacySessions } from '../../src/transports/legacy-sessions.js';
import { reportingFactory } from '../../src/transports/sdk-errors.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

export interface LegacySessionsServer {
  url: string;
  sessions: LegacySessions;
  bus: EventBus;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** `report` hears what each session's server reports (its transport's refusals among them), as serve-http's log does. */
export async function startLegacySessionsServer(
  options: LegacySessionOptions,
  report?: (err: Error) => void,
): Promise<LegacySessionsServer> {
  const sb: TestSandbox = await startTestSandbox();
  const logs = captureLogs('warn');
  const api: ApiClient = makeClient(sb, sb.keys.live, logs);
  const bus = createEventBus({ invalidate: (kind, id) => api.invalidate(kind, id) });
  const factory = await createServerFactory(
    { api, logger: logs.logger },
    { selection: { readOnly: true, toolsets: null }, confirmWrites: false, events: { bus, live: true } },
  );
  const sessions = new LegacySessions(report ? reportingFactory(factory, report) : factory, options);
  const http: Server = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (!sessions.claims(req.headers, req.method ?? 'GET', body)) return void res.writeHead(400).end();
    await sessions.handle(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    sessions,
    bus,
    async close() {
      await sessions.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await api.close();
      await sb.close();
    },
  };
}
