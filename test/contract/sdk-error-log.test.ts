// Contract: what a session's transport refuses for the client's own fault (a GET that does not accept an
// event stream: 406) is logged at debug, and a kind of its own: a client repeating it, as fast as it likes,
// hides no other error in the throttle's count of its own. The log is serve-http's: sdkErrorReporter.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sdkErrorReporter } from '../../src/transports/sdk-errors.js';
import { captureLogs } from '../support/logs.js';
import { type LegacySessionsServer, startLegacySessionsServer } from './legacy-sessions-server.js';

const ACCEPT = 'application/json, text/event-stream';
const VERSION = '2025-11-25';

const logs = captureLogs('debug');
const report = sdkErrorReporter(logs.logger);
let server: LegacySessionsServer;

beforeAll(async () => {
  server = await startLegacySessionsServer({ maxSessions: 10, idleMs: 60_000, keepAliveMs: 60_000 }, report);
});

afterAll(async () => {
  await server?.close();
});

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res;
}

it("a client's repeated 406s are logged at debug and do not hide a different warning after them", async () => {
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'wire', version: '1.0.0' } },
  });
  const headers = { 'mcp-session-id': init.headers.get('mcp-session-id') as string, 'mcp-protocol-version': VERSION };
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  for (let i = 0; i < 5; i++) {
    const refused = await fetch(server.url, { headers: { ...headers, accept: 'application/json' } });
    await refused.arrayBuffer();
    expect(refused.status).toBe(406);
  }
  // Something else failing in the protocol layer, as the SDK reports it: a plain Error, no code.
  report(new Error('Connection closed'));
  const lines = logs.lines().filter((l) => l.msg === 'MCP request refused or failed in the protocol layer');
  expect(lines.map((l) => [l.level, l.problem])).toEqual([
    [20, 'Not Acceptable: Client must accept text/event-stream'],
    [40, 'Connection closed'],
  ]);
});
