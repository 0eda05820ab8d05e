// What a user reads from the command line: --help on stdout naming the service's variables and the
// sandbox default, --version, flags of HTTP mode refused without --http, every missing variable named at
// once, a bad --log-level refused in one line before serving (and MCP's level names understood), and the
// banner's client config when run through npx.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientLaunch } from '../../src/cli/serve-command.js';
import { connectClient, textOf } from './support/clients.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { CLI, type Env, serverEnv, stdioCommand } from './support/server.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with stdin held open (so a server that starts serving would not exit by itself). */
async function runCli(args: string[], env: Env = {}, timeoutMs = 10_000): Promise<Outcome> {
  const child = spawn(process.execPath, [CLI, ...args], { env: serverEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

// The servers that serve run on one sandbox of the file's, on its test key: none starts a sandbox of its own.
const file = sandboxForFile();

describe('the command line', () => {
  it('--help goes to stdout and names the service variables and the sandbox default', async () => {
    const out = await runCli(['--help']);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe('');
    for (const word of [
      'SVC_BASE_URL',
      'SVC_KEY_ID',
      'SVC_SECRET',
      'SVC_WEBHOOK_SECRET',
      'SVC_POLL_SECONDS',
      'built-in sandbox',
      '--http',
      'check',
      '--version',
    ]) {
      expect(out.stdout).toContain(word);
    }
    expect((await runCli(['--read-only', '-h'])).stdout).toBe(out.stdout);
  });

  it('--version prints the package version', async () => {
    const out = await runCli(['--version']);
    expect(out).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each([
    ['--port', '9000'],
    ['--host', '0.0.0.0'],
    ['--http-token', 'a-token-of-twenty-chars'],
  ])('%s without --http is refused, pointing at --http', async (flag, value) => {
    const out = await runCli([flag, value]);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`${flag} is for HTTP mode: add --http`);
  });

  it('refuses a --businesses list with a wrong entry at start, in one line naming the entry and the field (exit 2)', async () => {
    const entry = (name: string, keyId: string) => ({
      name,
      base_url: 'https://invoicing.example.com',
      key_id: keyId,
      secret: 'svc_live_s1',
    });
    const list = JSON.stringify([entry('Harbourside', 'svck_live_k1'), entry('Tui Dental', 'svck_test_k2')]);
    const out = await runCli([], { INVOICING_MCP_BUSINESSES: list });
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.trim().split('\n')).toEqual([
      'invoicing-mcp: --businesses: entry 2 ("Tui Dental"): field secret: key_id is a test key (svck_test_) but secret is a live secret (svc_live_): use the key ID and secret of the same key',
    ]);
  });

  it('with only SVC_BASE_URL set, names both missing variables in one line', async () => {
    const out = await runCli([], { SVC_BASE_URL: 'https://invoicing.example.com' });
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/SVC_KEY_ID and SVC_SECRET are not set/);
    expect(out.stderr).toContain('built-in sandbox');
  });

  it.each(['verbose', 'warnings', 'LOUD'])(
    'a bad --log-level (%s) gets one line naming the levels, exit 2, before serving',
    async (level) => {
      const out = await runCli(['--log-level', level]);
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      const lines = out.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`not "${level}"`);
      for (const valid of ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']) expect(lines[0]).toContain(valid);
      expect(out.stderr).not.toContain('MCP server over');
    },
  );

  it('a bad INVOICING_MCP_LOG_LEVEL is refused the same way', async () => {
    const out = await runCli([], { INVOICING_MCP_LOG_LEVEL: 'verbose' });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('must be one of trace, debug');
  });

  it.each(['warning', 'notice', 'debug'])('--log-level %s serves tool calls (MCP level names are understood)', async (level) => {
    const mcp = await connectClient('v2', { stdio: stdioCommand(['--log-level', level], file.env) }, { probe: 'in-place' });
    try {
      const result = await mcp.client.callTool({ name: 'list_customers', arguments: { per_page: 2 } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toMatch(/customer/i);
    } finally {
      await mcp.close();
    }
  });

  it('run through npx, the banner offers the npx form, never the cache path', async () => {
    const env = serverEnv({ ...file.env, npm_command: 'exec' });
    const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    while (!stderr.includes('Connect a client')) await once(child.stderr, 'data');
    child.stdin.end();
    await once(child, 'exit');
    expect(stderr).toContain('"command":"npx","args":["-y","invoicing-mcp"]');
    expect(stderr).not.toContain(CLI);
    expect(clientLaunch('/home/u/.npm/_npx/1a2b/node_modules/invoicing-mcp/dist/bin/invoicing-mcp.mjs', {})).toEqual({
      command: 'npx',
      args: ['-y', 'invoicing-mcp'],
    });
    expect(clientLaunch('/opt/invoicing-mcp/dist/bin/invoicing-mcp.mjs', {})).toEqual({
      command: 'node',
      args: ['/opt/invoicing-mcp/dist/bin/invoicing-mcp.mjs'],
    });
  });
});
