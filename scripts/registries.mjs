// The tools and prompts registries, straight from the TypeScript sources: esbuild bundles them into one
// module under dist/build/ (the packages they use stay in node_modules), which the build scripts import.
// No compiler output is needed, so `npm test` builds what it runs without type-checking first.
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const out = new URL('dist/build/registries.mjs', root);

export async function loadRegistries() {
  await build({
    absWorkingDir: root.pathname,
    stdin: {
      contents: "export { computeToolManifest } from './src/mcp/tool-manifest.ts'; export { PROMPTS } from './prompts/index.ts';",
      resolveDir: root.pathname,
      loader: 'ts',
    },
    outfile: out.pathname,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    packages: 'external',
    logLevel: 'warning',
  });
  return import(out.href);
}
