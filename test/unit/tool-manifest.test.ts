// The built manifest (what a starting server lists) must be exactly what the registry advertises.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/registry.js';
import { computeToolManifest } from '../../src/mcp/tool-manifest.js';

describe('the tool manifest', () => {
  it('lists every tool of the registry, in order', async () => {
    const manifest = await computeToolManifest();
    expect(manifest.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(manifest.filter((t) => t.write).map((t) => t.name)).toEqual(['create_customer', 'create_draft_invoice']);
  });

  it('is rebuilt by npm run build (dist matches the registry)', async () => {
    const built = JSON.parse(readFileSync(new URL('../../dist/tools/manifest.json', import.meta.url), 'utf8'));
    expect(built).toEqual(await computeToolManifest());
  });
});
