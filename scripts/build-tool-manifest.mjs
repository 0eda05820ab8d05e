// Writes dist/tools/manifest.json: what tools/list shows, so a starting server need not load the tools.
import { writeFileSync } from 'node:fs';
import { computeToolManifest, MANIFEST_URL } from '../dist/src/mcp/tool-manifest.js';

const manifest = await computeToolManifest();
writeFileSync(MANIFEST_URL, `${JSON.stringify(manifest, null, 2)}\n`);
