// `npm run bundle`: packs the MCP Bundle invoicing-mcp.mcpb for one-click install in desktop clients. It
// stages dist/mcpb/ as the bundle's root: the manifest the build wrote, the server bundle (dist/bin), a
// package.json and the production dependencies the bundle leaves to node_modules (installed from the
// lock file, from npm's cache when it can), then validates the manifest and packs it with mcpb.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const stage = new URL('dist/mcpb/', root);
const at = (path) => new URL(path, root).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const mcpb = at(`node_modules/.bin/${process.platform === 'win32' ? 'mcpb.cmd' : 'mcpb'}`);
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });

for (const old of ['dist/bin', 'node_modules', 'package.json', 'package-lock.json', 'LICENSE']) {
  rmSync(new URL(old, stage), { recursive: true, force: true });
}
cpSync(at('dist/bin'), new URL('dist/bin', stage).pathname, { recursive: true });
copyFileSync(at('LICENSE'), new URL('LICENSE', stage));
copyFileSync(at('package-lock.json'), new URL('package-lock.json', stage));
// The package without its scripts, so installing it runs no build.
const { scripts: _scripts, ...pkg } = JSON.parse(readFileSync(at('package.json'), 'utf8'));
writeFileSync(new URL('package.json', stage), `${JSON.stringify(pkg, null, 2)}\n`);
run(npm, ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], stage.pathname);
rmSync(new URL('package-lock.json', stage), { force: true });
run(mcpb, ['validate', 'manifest.json'], stage.pathname);
run(mcpb, ['pack', stage.pathname, at('invoicing-mcp.mcpb')], root.pathname);
