// `npm run build:dist`: the tools manifest, the bundles and the MCP Bundle manifest in that order (each needs
// the one before), and beside them the views' pages and the sandbox's declaration file, which need none of
// them (the declarations load the TypeScript compiler: a second of CPU that need not wait on the bundler).
import { spawn } from 'node:child_process';

const step = (script) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [new URL(script, import.meta.url).pathname], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${script} ended with ${signal ?? code}`))));
  });

try {
  await Promise.all([
    step('sandbox-types.mjs'),
    step('build-views.mjs'),
    step('build-tool-manifest.mjs')
      .then(() => step('bundle.mjs'))
      .then(() => step('build-mcpb-manifest.mjs')),
  ]);
} catch (err) {
  process.stderr.write(`build:dist: ${err.message}\n`);
  process.exitCode = 1;
}
