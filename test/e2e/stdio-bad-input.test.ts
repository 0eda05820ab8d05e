// The stdio server fed what a careless client might write: a message over 10 MiB, JSON-RPC of the wrong
// version, a batch, a line that is not JSON, and 20,000 bad lines in a row. Each is answered where it
// carries an id (-32600, or -32700 for broken JSON), the log gets a line per kind rather than per line, and
// then a real SDK client of either era starts its session on the same process and is served.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport as LegacyLines } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StdioServerTransport as ModernLines } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { compiledOnce, compiledOnceV2 } from '../support/schema-validators.js';
import { ALL_TOOLS } from './support/expect.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { stdioCommand } from './support/server.js';

const FLOOD = 20_000;

interface Child {
  process: ChildProcessWithoutNullStreams;
  stderr: () => string;
}

const file = sandboxForFile();

let child: Child | null = null;
afterEach(() => {
  child?.process.kill();
  child = null;
});

function start(): Child {
  const { command, args, env } = stdioCommand([], file.env);
  const process = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  process.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { process, stderr: () => stderr };
}

/** Writes `lines` and resolves with the answers once `count` have come (our own reader, not a client's). */
async function answers(c: Child, lines: string[], count: number): Promise<any[]> {
  const got: any[] = [];
  let buffer = '';
  const stdout = c.process.stdout;
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${count} answers came`)), 30_000);
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        got.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
      if (got.length >= count) {
        stdout.off('data', onData);
        clearTimeout(timer);
        resolve();
      }
    };
    stdout.on('data', onData);
  });
  c.process.stdin.write(lines.map((line) => `${line}\n`).join(''));
  await done;
  return got;
}

const BAD = [
  `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_customers","arguments":{"search":"${'x'.repeat(10 * 1024 * 1024 + 100)}"}},"id":"big"}`,
  '{"jsonrpc":"1.0","id":"old","method":"tools/list"}',
  '[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]',
  '{"jsonrpc":"2.0","id":"cut","method":"ping"',
  '{"jsonrpc":"1.0","method":"no-id"}',
];

async function refuseTheBadLines(c: Child): Promise<void> {
  const flood = Array.from({ length: FLOOD }, (_, i) => `{"jsonrpc":"1.0","id":"f${i}","method":"ping"}`);
  const got = await answers(c, [...BAD, ...flood], 5 + FLOOD);
  const byId = new Map(got.map((m) => [m.id, m]));
  expect(byId.get('big').error.code).toBe(-32600);
  expect(byId.get('big').error.message).toMatch(/too large/i);
  expect(byId.get('old').error.code).toBe(-32600);
  expect(byId.get('b1').error.message).toMatch(/batches are not supported/);
  expect(byId.get('b2').error.code).toBe(-32600);
  expect(byId.get('cut').error.code).toBe(-32700);
  expect(got.filter((m) => typeof m.id === 'string' && m.id.startsWith('f') && m.error?.code === -32600).length).toBe(FLOOD);
  expect(got.every((m) => m.error !== undefined)).toBe(true);
}

describe.each([
  ['the v2 client on 2026-07-28', 'modern'],
  ['the v1 client on 2025-11-25', 'legacy'],
] as const)('after the bad input, %s', (_name, era) => {
  it('is served on the same process, and the log has a line per kind, not per line', async () => {
    const c = (child = start());
    await refuseTheBadLines(c);
    const out = c.process.stdout;
    const into = c.process.stdin;
    const client =
      era === 'modern'
        ? new ModernClient(
            { name: 'after-bad-input', version: '1' },
            { versionNegotiation: { mode: { pin: '2026-07-28' } }, jsonSchemaValidator: compiledOnceV2 },
          )
        : new LegacyClient({ name: 'after-bad-input', version: '1' }, { jsonSchemaValidator: compiledOnce });
    await client.connect(era === 'modern' ? new ModernLines(out, into) : new LegacyLines(out, into));
    try {
      const tools = await client.listTools();
      expect(tools.tools.length).toBe(ALL_TOOLS.length);
      const listed = (await client.callTool({ name: 'list_customers', arguments: { per_page: 1 } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(listed.isError).toBeFalsy();
      expect(listed.content[0]?.text).toMatch(/^customers 1-1 of \d+/);
    } finally {
      await client.close();
    }
    const logged = c
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .filter((l) => String(l.kind).startsWith('stdio-'));
    expect(logged.map((l) => l.kind).sort()).toEqual(['stdio-batch', 'stdio-not-json', 'stdio-not-jsonrpc', 'stdio-oversized']);
    expect(c.stderr().length).toBeLessThan(4_000);
  }, 60_000);
});
