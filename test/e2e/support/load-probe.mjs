// Preloaded into a server child (`node --import`) by the start-up test: as each JSON-RPC answer is written
// to stdout, writes to stderr what the process had loaded by then — the native binaries opened, which of
// the heavy packages were required, and whether the mirror's directory exists under the cache home — so
// the test reads a snapshot taken at the moment of the answer, not whenever it looks. Changes nothing.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const PACKAGES = ['libsql', 'undici', 'pino'];
const required = createRequire(import.meta.url).cache;
const natives = [];

const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  natives.push(filename);
  return dlopen.call(this, module, filename, ...rest);
};

/** A JSON-RPC answer (a result or an error with an id), or null. */
function answer(line) {
  try {
    const message = JSON.parse(line);
    return message && message.id !== undefined && ('result' in message || 'error' in message) ? message : null;
  } catch {
    return null;
  }
}

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  for (const line of String(chunk).split('\n')) {
    const message = answer(line);
    if (!message) continue;
    const paths = Object.keys(required);
    const snapshot = {
      id: message.id,
      native: [...natives],
      packages: PACKAGES.filter((name) => paths.some((p) => new RegExp(`[\\\\/]node_modules[\\\\/]${name}[\\\\/]`).test(p))),
      mirrorDir: existsSync(join(process.env.XDG_CACHE_HOME ?? '', 'invoicing-mcp')),
    };
    process.stderr.write(`load-probe ${JSON.stringify(snapshot)}\n`);
  }
  return write(chunk, ...rest);
};
