// A question asked of a cold mirror (no background rounds, nothing read yet): the answer waits for the
// whole read, tells a client that sent a progress token how the read is going (rising progress, the
// service's total), and the figure it gives is the whole one, checked against the test's own arithmetic on
// the raw API. Asked again at once, it reads nothing and reports no progress. Over stdio (the v2 client)
// and over HTTP in a 2025-era session (the v1 client), where the progress rides the call's own SSE stream
// ahead of its answer.
import { Client } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { type HttpServer, spawnHttpServer } from '../e2e/support/server.js';
import { stdioHere } from '../e2e/support/stdio-here.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { compiledOnce, compiledOnceV2 } from '../support/schema-validators.js';
import { type RawBooks, readRawBooks, receivable, same, tally } from './ground-truth.js';

const TODAY = '2027-03-15';
let sb: TestSandbox;
let books: RawBooks;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await startTestSandbox({ scale: 2, today: TODAY, rateLimit: 1_000_000 });
  books = await readRawBooks(sb.baseUrl, sb.keys.live);
  env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_POLL_SECONDS: '0' };
}, 120_000);
afterAll(async () => {
  await sb?.close();
});

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

interface Connection {
  callOwed(updates: Progress[]): Promise<{ isError?: boolean; content: unknown; structuredContent?: unknown }>;
  close(): Promise<void>;
}

const over: [string, () => Promise<Connection>][] = [
  [
    'the v2 client over stdio',
    async () => {
      const server = await stdioHere(['--mirror', 'memory'], env);
      const client = new Client({ name: 'cold-progress-test', version: '1.0.0' }, { jsonSchemaValidator: compiledOnceV2 });
      await client.connect(server.transport as Parameters<Client['connect']>[0]);
      return {
        callOwed: (updates) => client.callTool({ name: 'report_owed', arguments: {} }, { onprogress: (p) => void updates.push(p) }),
        close: async () => {
          await client.close();
          await server.close();
        },
      };
    },
  ],
  [
    'the v1 client over HTTP, in its session',
    async () => {
      const server: HttpServer = await spawnHttpServer(['--mirror', 'memory'], env);
      const client = new ClientV1({ name: 'cold-progress-test', version: '1.0.0' }, { jsonSchemaValidator: compiledOnce });
      await client.connect(new HttpV1(new URL(server.url)));
      return {
        callOwed: (updates) =>
          client.callTool({ name: 'report_owed', arguments: {} }, undefined, { onprogress: (p) => void updates.push(p) }),
        close: async () => {
          await client.close();
          await server.close();
        },
      };
    },
  ],
];

describe.each(over)('%s', (_name, connect) => {
  let connected: Connection;
  beforeAll(async () => {
    connected = await connect();
  }, 120_000);
  afterAll(async () => {
    await connected?.close();
  });

  async function owed(updates: Progress[]): Promise<Json> {
    const result = await connected.callOwed(updates);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return result.structuredContent as Json;
  }

  it('reports the cold read as MCP progress, then answers with the whole figure', async () => {
    const updates: Progress[] = [];
    const answer = await owed(updates);

    // Every page of the invoices is a step: several steps, each higher, ending at the service's total.
    expect(books.invoices.length).toBeGreaterThan(300);
    expect(updates.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
    const last = updates.at(-1)!;
    expect(last.progress).toBe(books.invoices.length);
    expect(last.total).toBe(books.invoices.length);
    expect(updates.every((u) => /reading invoices/.test(u.message ?? ''))).toBe(true);

    const truth = tally(
      books.invoices.filter(receivable),
      (i) => i.currency,
      (i) => i.balance,
    );
    expect(answer.currencies.map((c: Json) => c.currency).sort()).toEqual([...truth.keys()].sort());
    for (const c of answer.currencies) {
      expect(c.count, c.currency).toBe(truth.get(c.currency)!.count);
      expect(same(c.balance, truth.get(c.currency)!.sum), `${c.currency} ${c.balance}`).toBe(true);
    }
  });

  it('asked again at once, reads nothing and reports no progress', async () => {
    const first: Progress[] = [];
    const before = await owed(first);
    const again: Progress[] = [];
    const after = await owed(again);
    expect(again).toEqual([]);
    expect(after.currencies).toEqual(before.currencies);
  });
});
