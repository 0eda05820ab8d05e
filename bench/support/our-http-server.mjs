// Our built server over Streamable HTTP in a process of its own, on an ephemeral port: resolves with its
// /mcp URL (from the banner on stderr), its pid and the child.
import { spawn } from 'node:child_process';

const cli = new URL('../../dist/bin/invoicing-mcp.mjs', import.meta.url).pathname;

export function startOurHttpServer(env, args) {
  const child = spawn(process.execPath, [cli, '--http', '--port', '0', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    let done = false;
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = /Streamable HTTP at (http:\/\/[^\s,]+)/.exec(seen);
      if (m && !done) {
        done = true;
        resolve({ url: m[1], pid: child.pid, child });
      }
    });
    child.once('exit', (code) => reject(new Error(`our server exited with ${code}: ${seen}`)));
  });
}
