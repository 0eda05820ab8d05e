// The README's tool table, made from the registry (dist/tools/manifest.json, written by `npm run build`):
//   node scripts/tool-table.mjs            print the table
//   node scripts/tool-table.mjs --write    put it between the tools markers of README.md
//   node scripts/tool-table.mjs --check    exit 1 when README.md's table is not the registry's
// `--readme FILE` works on another file. `npm run docs:tools` builds and writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const START = '<!-- tools:start -->';
const END = '<!-- tools:end -->';
const root = new URL('../', import.meta.url);

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\s+/g, ' ');

function table(manifest) {
  const rows = manifest.map(
    (t) =>
      `| \`${t.name}\` | ${cell(t.description)} | ${t.toolset} | ${t.scope ? `\`${t.scope}\`` : 'any key'} | ${t.write ? 'create' : 'read'} |`,
  );
  return ['| tool | what it does | toolset | scope | kind |', '|---|---|---|---|---|', ...rows].join('\n');
}

function splice(readme, body) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`the README has no ${START} ... ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n${body}\n${readme.slice(end)}`;
}

const { values } = parseArgs({ options: { write: { type: 'boolean' }, check: { type: 'boolean' }, readme: { type: 'string' } } });
const manifest = JSON.parse(readFileSync(new URL('dist/tools/manifest.json', root), 'utf8'));
const body = table(manifest);
const readmePath = values.readme ?? new URL('README.md', root).pathname;

if (values.write || values.check) {
  const readme = readFileSync(readmePath, 'utf8');
  const fresh = splice(readme, body);
  if (values.check && fresh !== readme) {
    process.stderr.write(`${readmePath}: the tool table is not the registry's; run \`npm run docs:tools\` and commit README.md\n`);
    process.exit(1);
  }
  if (values.write && fresh !== readme) writeFileSync(readmePath, fresh);
} else {
  process.stdout.write(`${body}\n`);
}
