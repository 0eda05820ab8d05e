// The MCP server wired as the CLI wires it (connect, the mirror's plan, the server factory, the SDK's stdio
// entry), but inside the test worker on an in-memory transport: the answers tests ask many questions of
// servers that each sync a whole set of books, and in a worker whose code is already warm that costs a
// fraction of a new process's start and first sync. The client side is for a real SDK client (either SDK);
// the built server as it ships, over stdio and HTTP, is what test/e2e/ tests.
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { planBooksMirror } from '../../src/books/books-mirror.js';
import { connect } from '../../src/cli/connect.js';
import { createEventBus } from '../../src/events/bus.js';
import { createServerFactory } from '../../src/mcp/server.js';
import { captureLogs } from '../support/logs.js';

export interface InProcessOptions {
  /** The --mirror setting: `memory`, a file, or a Postgres URL. */
  mirror: string;
  confirmWrites?: boolean;
}

export interface InProcessServer {
  /** The client's end of the in-memory transport. */
  transport: InMemoryTransport;
  close(): Promise<void>;
}

export async function startInProcessServer(env: Record<string, string>, options: InProcessOptions): Promise<InProcessServer> {
  const logs = captureLogs('warn');
  const loadLogger = async () => logs.logger;
  const connection = await connect(env, loadLogger);
  const bus = createEventBus({ invalidate: (kind, id) => connection.api.invalidate(kind, id) });
  const mirror = planBooksMirror(options.mirror, connection, bus, loadLogger, { eventsLive: false });
  const factory = await createServerFactory(
    { api: connection.api, books: mirror.books, logger: logs.logger },
    { selection: { readOnly: false, toolsets: null }, confirmWrites: options.confirmWrites ?? false, events: { bus, live: false } },
  );
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const served = serveStdio((ctx) => factory({ era: ctx.era, lifetime: 'connection' }), { transport: serverSide });
  // As the CLI does once its first requests are answered: opens the store, and syncs if polling is on.
  await mirror.start();
  return {
    transport: clientSide,
    close: async () => {
      await served.close();
      await mirror.close();
      await connection.close();
    },
  };
}
