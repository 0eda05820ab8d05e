// docs/folders.md: every folder of the code and each file's job, in the words of the comment that opens it.
//   node scripts/folder-map.mjs            print the map
//   node scripts/folder-map.mjs --write    write docs/folders.md
//   node scripts/folder-map.mjs --check    exit 1 when docs/folders.md is not the code's
// `npm run docs:folders` writes it.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('../', import.meta.url).pathname;
const TOPS = ['src', 'tools', 'prompts'];

function* folders(dir) {
  yield dir;
  for (const name of readdirSync(join(root, dir)).sort()) {
    if (statSync(join(root, dir, name)).isDirectory()) yield* folders(`${dir}/${name}`);
  }
}

/** The first sentence of the comment a file opens with (after a shebang); null when it opens with none. */
export function jobOf(text) {
  const lines = text.split('\n').filter((line, i) => !(i === 0 && line.startsWith('#!')));
  const said = [];
  for (const line of lines) {
    const m = /^\s*(?:\/\/|\/\*\*?|\*)\s?(.*?)\s*(?:\*\/)?$/.exec(line);
    if (!m || line.trim() === '' || /^\s*(import|export|const|function)\b/.test(line)) break;
    said.push(m[1]);
  }
  const words = said.join(' ').replace(/\s+/g, ' ').trim();
  if (!words) return null;
  const end = words.search(/\.(\s|$)/);
  const sentence = end < 0 ? words : words.slice(0, end + 1);
  return sentence.length <= 240 ? sentence : `${sentence.slice(0, sentence.lastIndexOf(' ', 237))} ...`;
}

export function folderMap() {
  const out = [
    '# Folders and files',
    '',
    "Every folder of the code and each file's job, in the first sentence of the comment the file opens with.",
    "Written by `npm run docs:folders`; `test/unit/folder-map.test.ts` fails when it is not the code's. The rooms",
    'these folders make and which may import which are in [architecture.md](architecture.md#rooms).',
    '',
  ];
  const missing = [];
  for (const top of TOPS) {
    for (const dir of folders(top)) {
      const files = readdirSync(join(root, dir))
        .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
        .sort();
      if (files.length === 0) continue;
      out.push(`## \`${dir}/\``, '', '| file | its job |', '| --- | --- |');
      for (const name of files) {
        const job = jobOf(readFileSync(join(root, dir, name), 'utf8'));
        if (job === null) missing.push(`${dir}/${name}`);
        out.push(`| \`${name}\` | ${(job ?? '').replace(/\|/g, '\\|')} |`);
      }
      out.push('');
    }
  }
  return { text: out.join('\n'), missing };
}

const { values } = parseArgs({ options: { write: { type: 'boolean' }, check: { type: 'boolean' }, doc: { type: 'string' } } });
if (import.meta.url === `file://${process.argv[1]}`) {
  const doc = values.doc ?? join(root, 'docs/folders.md');
  const { text, missing } = folderMap();
  if (missing.length > 0) {
    process.stderr.write(`these files open with no comment saying their job: ${missing.join(', ')}\n`);
    process.exit(1);
  }
  if (values.write) writeFileSync(doc, text);
  else if (values.check) {
    if (readFileSync(doc, 'utf8') !== text) {
      process.stderr.write(`${doc} is not the code's folder map: run npm run docs:folders\n`);
      process.exit(1);
    }
  } else process.stdout.write(text);
}
