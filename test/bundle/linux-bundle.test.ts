// The Linux MCP Bundle that `npm run bundle` made, as a desktop client installs it: unpacked into an empty folder with no other node_modules reachable, started with keys (so the books mirror opens its
// file through libsql's native binary from the bundle) and answering a session. With its native binaries
// hidden, the server still serves the tools that read the service, and says why the mirror is off.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, textOf } from '../e2e/support/clients.js';
import { keyEnv } from '../e2e/support/server.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

const root = new URL('../..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'invoicing-mcp-bundle-test-'));
const folder = join(work, 'installed');
let sb: TestSandbox;

/** No folder from the unpacked server up to the root holds a node_modules of its own. */
function nodeModulesAbove(path: string): string[] {
  const found: string[] = [];
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) found.push(dir);
  }
  return found;
}

async function session(stderrTo: string[]) {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: work,
    XDG_CACHE_HOME: join(work, 'cache'),
    SVC_POLL_SECONDS: '0',
    ...keyEnv(sb, sb.keys.live),
  };
  const c = await connectClient('v2', { stdio: { command: process.execPath, args: [join(folder, 'dist/bin/invoicing-mcp.mjs')], env } });
  stderrTo.push(...c.errors.map(String));
  return c;
}

beforeAll(async () => {
  sb = await startTestSandbox();
  execFileSync(process.execPath, [join(root, 'scripts/pack-mcpb.mjs'), 'linux', '--out', work], { stdio: ['ignore', 2, 2] });
  execFileSync(join(root, 'node_modules/.bin/mcpb'), ['unpack', join(work, 'invoicing-mcp-linux.mcpb'), folder], {
    stdio: ['ignore', 2, 2],
  });
}, 120_000);
afterAll(async () => {
  await sb?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the Linux bundle, unpacked alone', () => {
  it('names only Linux, and carries every Linux processor binary of libsql', () => {
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'));
    expect(manifest.compatibility.platforms).toEqual(['linux']);
    expect(readdirSync(join(folder, 'node_modules/@libsql')).sort()).toEqual([
      'linux-arm64-gnu',
      'linux-arm64-musl',
      'linux-x64-gnu',
      'linux-x64-musl',
    ]);
    expect(nodeModulesAbove(folder)).toEqual([]);
  });

  it('answers a session: a list read from the service, an answer summed from its mirror file, a view', async () => {
    const c = await session([]);
    try {
      const listed = await c.client.callTool({ name: 'list_invoices', arguments: { per_page: 3 } });
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent.data).toHaveLength(3);
      const owed = await c.client.callTool({ name: 'report_owed', arguments: {} });
      expect(owed.isError, textOf(owed)).toBeFalsy();
      expect(owed.structuredContent.currencies.length).toBeGreaterThan(0);
      expect(readdirSync(join(work, 'cache'), { recursive: true }).some((f) => String(f).endsWith('.db'))).toBe(true);
      // The views' pages travel in the bundle (dist/views/).
      const { contents } = await c.client.readResource({ uri: 'ui://invoicing/charts' });
      expect(contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app', text: expect.stringMatching(/^<!doctype html>/) });
    } finally {
      await c.close();
    }
  });

  it('with its native binaries hidden, still answers list_invoices and says why the answers are off', async () => {
    const binaries = join(folder, 'node_modules/@libsql');
    renameSync(binaries, `${binaries}-hidden`);
    try {
      const c = await session([]);
      try {
        const listed = await c.client.callTool({ name: 'list_invoices', arguments: { per_page: 2 } });
        expect(listed.isError).toBeFalsy();
        expect(listed.structuredContent.data).toHaveLength(2);
        const owed = await c.client.callTool({ name: 'report_owed', arguments: {} });
        expect(owed.isError).toBe(true);
        expect(textOf(owed)).toMatch(
          /The books mirror cannot load on this system .*: the list_\* and get_\* tools read the service directly/,
        );
        const again = await c.client.callTool({ name: 'get_invoice', arguments: { id: listed.structuredContent.data[0].id } });
        expect(again.isError).toBeFalsy();
      } finally {
        await c.close();
      }
    } finally {
      renameSync(`${binaries}-hidden`, binaries);
    }
  });
});
