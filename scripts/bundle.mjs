// Bundles the built server (dist/src/cli.js) into dist/bin/: our modules, the MCP SDK and zod become a few
// files, and the tools list is inlined, so a starting server loads 14 modules instead of 138 (module
// loading was most of its start-up). What loads later stays in chunks of its own and loads when
// first needed (the API client, the sandbox, HTTP). pino, undici and fastify are left to node_modules:
// they load workers or optional parts by name, which a bundle would break. @libsql/client loads a native
// binary for the platform, so it too stays in node_modules.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const manifest = readFileSync(new URL('dist/tools/manifest.json', root), 'utf8');
// Chunk names carry hashes: clear out the last build's.
rmSync(new URL('dist/bin/', root), { recursive: true, force: true });

await build({
  absWorkingDir: root.pathname,
  entryPoints: { 'invoicing-mcp': 'dist/src/cli.js' },
  outdir: 'dist/bin',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external: ['pino', 'undici', 'fastify', '@libsql/client'],
  define: { BUNDLED_TOOL_MANIFEST: manifest },
  // Bundled CommonJS code may require Node's own modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  legalComments: 'eof',
  logLevel: 'warning',
});
