// Bundles the server (src/cli.ts, from the TypeScript sources) into dist/bin/, and the sandbox as a library into
// dist/lib/sandbox.mjs (the package's `invoicing-mcp/sandbox` export, typed by dist/types/sandbox/index.d.ts).
// The server: our modules, the MCP SDK and zod become a few
// files, and the tools list is inlined, so a starting server loads 14 modules instead of 138 (module
// loading was most of its start-up). What loads later stays in chunks of its own and loads when
// first needed (the API client, the sandbox, HTTP). libsql loads a native binary for the platform,
// so it stays in node_modules; so does pg (the Postgres driver), which names an optional native module.
import { readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import { englishOnly } from './zod-english-only.mjs';

const root = new URL('../', import.meta.url);
// pino and undici load workers or optional parts by name, which a bundle would break: they stay in
// node_modules. fastify is bundled, so an install does not pull its test helper (light-my-request), whose
// cookie package asks for Node 22.
const EXTERNAL = ['pino', 'undici', 'libsql', 'pg'];
const manifest = readFileSync(new URL('dist/tools/manifest.json', root), 'utf8');
// Chunk names carry hashes: clear out the last build's.
rmSync(new URL('dist/bin/', root), { recursive: true, force: true });
rmSync(new URL('dist/lib/', root), { recursive: true, force: true });

const common = {
  absWorkingDir: root.pathname,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external: EXTERNAL,
  // Bundled CommonJS code may require Node's own modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  legalComments: 'eof',
  logLevel: 'warning',
};

// Some bundled packages (koa and oidc-provider, for hosted mode) name Node's own modules without `node:`:
// the bundle names them with it, so that every bare import left in it is a package from node_modules.
const nodePrefix = {
  name: 'node-prefix',
  setup(b) {
    b.onResolve({ filter: /^[a-z_]+(\/[a-z_]+)?$/ }, (args) =>
      builtinModules.includes(args.path) ? { path: `node:${args.path}`, external: true } : undefined,
    );
  },
};

await build({
  ...common,
  // serve-in-process: the server (stdio on given streams, or HTTP) as a function of the same bundle, for the
  // end-to-end tests.
  entryPoints: { 'invoicing-mcp': 'src/cli.ts', 'serve-in-process': 'src/cli/serve-in-process.ts' },
  outdir: 'dist/bin',
  splitting: true,
  define: { BUNDLED_TOOL_MANIFEST: manifest },
  plugins: [englishOnly, nodePrefix],
});

await build({ ...common, entryPoints: { sandbox: 'src/sandbox/index.ts' }, outdir: 'dist/lib' });
