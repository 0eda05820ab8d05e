// Writes dist/tools/manifest.json: what tools/list shows, so a starting server need not load the tools.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadRegistries } from './registries.mjs';

const { computeToolManifest } = await loadRegistries();
const manifest = await computeToolManifest();
mkdirSync(new URL('../dist/tools/', import.meta.url), { recursive: true });
writeFileSync(new URL('../dist/tools/manifest.json', import.meta.url), `${JSON.stringify(manifest, null, 2)}\n`);
