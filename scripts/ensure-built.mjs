// Before `npm start` and `npm run sandbox`: builds once when the bundle is missing (a fresh clone after
// `npm install`), so the package itself needs no install script. The build's output goes to stderr: stdout is the protocol.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/bin/invoicing-mcp.mjs', import.meta.url))) {
  process.stderr.write('invoicing-mcp: building dist/ first (npm run build:dist)\n');
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build:dist', '--silent'], { stdio: ['ignore', 2, 2] });
}
