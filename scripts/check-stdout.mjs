// Fails when code other than the CLI entry writes to stdout: in stdio mode stdout is the MCP protocol.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// The tree to check: the project by default, or a folder given as the first argument (the check's own test).
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
// The stdio transport is the one other writer: what it writes is the protocol itself.
const ALLOWED = new Set(['src/cli.ts', 'src/transports/stdio-transport.ts']);
const PATTERN = /console\.(log|info|debug|table|dir)\s*\(|process\.stdout\.write|process\.stdout\b/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|mts|js|mjs)$/.test(name)) yield path;
  }
}

const hits = [];
for (const top of ['src', 'tools', 'prompts']) {
  let base;
  try {
    base = statSync(join(root, top)).isDirectory() ? join(root, top) : null;
  } catch {
    continue;
  }
  if (!base) continue;
  for (const path of files(base)) {
    const rel = relative(root, path);
    if (ALLOWED.has(rel)) continue;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (PATTERN.test(line)) hits.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
}
if (hits.length > 0) {
  process.stderr.write(`stdout is the MCP protocol; only src/cli.ts and the stdio transport may write to it:\n${hits.join('\n')}\n`);
  process.exit(1);
}
process.stderr.write('check-stdout: no stdout writes outside src/cli.ts and the stdio transport\n');
