// The MCP Bundle's manifest (dist/mcpb/manifest.json, written by the build) lists exactly the tools and
// prompts of the registries, carries the package's version, keeps the secret in the keychain, and with
// every field left empty (as a desktop client fills the placeholders) starts the server on the sandbox.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROMPTS } from '../../prompts/index.js';
import { TOOLS } from '../../src/mcp/registry.js';
import { connectClient } from './support/clients.js';
import { stdioHere } from './support/stdio-here.js';

const read = (path: string): any => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));
const manifest = read('dist/mcpb/manifest.json');

describe('the MCP Bundle manifest', () => {
  it('lists the tools and prompts of the registries, with their descriptions', () => {
    expect(manifest.tools).toEqual(TOOLS.map((t) => ({ name: t.name, description: t.description })));
    expect(manifest.prompts.map((p: { name: string }) => p.name)).toEqual(PROMPTS.map((p) => p.name));
    for (const p of manifest.prompts) expect(p.text.length, p.name).toBeGreaterThan(20);
  });

  it('carries the package version and asks for the keys, the secret kept sensitive', () => {
    expect(manifest.version).toBe(read('package.json').version);
    expect(Object.keys(manifest.user_config).sort()).toEqual(['base_url', 'businesses', 'key_id', 'read_only', 'secret', 'webhook_secret']);
    expect(manifest.user_config.secret.sensitive).toBe(true);
    expect(manifest.user_config.webhook_secret.sensitive).toBe(true);
    expect(manifest.server.mcp_config.env).toMatchObject({
      SVC_BASE_URL: '${user_config.base_url}',
      SVC_KEY_ID: '${user_config.key_id}',
      SVC_SECRET: '${user_config.secret}',
      INVOICING_MCP_BUSINESSES: '${user_config.businesses}',
    });
  });

  it.each([
    ['empty', 'false'],
    ['empty, read only', 'true'],
  ])('with the fields %s, runs on the built-in sandbox', async (_name, readOnly) => {
    const env = Object.fromEntries(
      Object.entries(manifest.server.mcp_config.env as Record<string, string>).map(([k, v]) => [
        k,
        v === '${user_config.read_only}' ? readOnly : '',
      ]),
    );
    const mcp = await connectClient('v2', { linked: await stdioHere([], env) });
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.length).toBe(readOnly === 'true' ? TOOLS.filter((t) => t.annotations.readOnlyHint).length : TOOLS.length);
      const check = await mcp.client.callTool({ name: 'check_connection', arguments: {} });
      expect(check.structuredContent).toMatchObject({ ok: true, mode: 'test' });
    } finally {
      await mcp.close();
    }
  });
});
