// The stdio server as a client's host sees it: stdout carries only JSON-RPC, the banner goes to stderr,
// and closing stdin ends the process.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { stdioCommand } from './support/server.js';

const lines = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_invoices', arguments: { per_page: 1 } } },
  { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_invoice', arguments: { id: 987654 } } },
];

describe('the stdio server', () => {
  it('writes only JSON-RPC to stdout, its banner to stderr, and exits when stdin closes', async () => {
    const { command, args, env } = stdioCommand();
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = once(child, 'exit');
    for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
    // Close stdin once the last answer is in, as a host does when it is done.
    await new Promise<void>((resolve) => {
      const done = (): void => void (/"id":4\b/.test(stdout) && resolve());
      child.stdout.on('data', done);
      done();
    });
    child.stdin.end();
    const [code] = await exited;

    const messages = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(messages[0].result.protocolVersion).toBe('2025-11-25');
    expect(messages[2].result.isError).toBeFalsy();
    expect(messages[3].result).toMatchObject({ isError: true });
    expect(stderr).toContain('invoicing-mcp: MCP server over stdio');
    expect(code).toBe(0);
  });
});
