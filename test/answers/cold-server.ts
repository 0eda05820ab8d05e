// An MCP server on a new, empty books mirror (in memory), wired as the CLI wires it (connect, the mirror's
// plan, the server factory, the SDK's stdio entry) but on an in-memory transport inside the test worker: a
// cold mirror for each question costs its first sync, not a process start. The client is the real v2 SDK
// client.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { planBooksMirror } from '../../src/cli/books-mirror.js';
import { connect } from '../../src/cli/connect.js';
import { createEventBus } from '../../src/events/bus.js';
import { createServerFactory } from '../../src/mcp/server.js';
import { captureLogs } from '../support/logs.js';
import type { KeyPair } from '../support/sandbox.js';
import { compiledOnceV2 } from '../support/schema-validators.js';

export interface ColdServer {
  client: Client;
  close(): Promise<void>;
}

export async function coldServer(baseUrl: string, key: KeyPair): Promise<ColdServer> {
  const logs = captureLogs('warn');
  const loadLogger = async () => logs.logger;
  // No background rounds: the first question's own fresh reads fill the mirror.
  const env = { SVC_BASE_URL: baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret, SVC_POLL_SECONDS: '0' };
  const connection = await connect(env, loadLogger);
  const bus = createEventBus({ invalidate: (kind, id) => connection.api.invalidate(kind, id) });
  const mirror = planBooksMirror('memory', connection, bus, loadLogger, { eventsLive: false });
  const factory = await createServerFactory(
    { api: connection.api, books: mirror.books, logger: logs.logger },
    { selection: { readOnly: false, toolsets: null }, confirmWrites: false, events: { bus, live: false } },
  );
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const served = serveStdio((ctx) => factory({ era: ctx.era, lifetime: 'connection' }), { transport: serverSide });
  const client = new Client({ name: 'cold-questions', version: '1.0.0' }, { jsonSchemaValidator: compiledOnceV2 });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await served.close();
      await mirror.close();
      await connection.close();
    },
  };
}
