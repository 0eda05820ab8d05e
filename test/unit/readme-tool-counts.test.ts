// Every "N tools" the README states sits on a row that names its command, and is what the server shows for
// that command: the flags parsed as the server parses them, the mirror placed as the server places it (off
// hides the answer tools), the registry filtered by the server's own selection.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseServeOptions } from '../../src/cli/serve-flags.js';
import { TOOLS } from '../../src/mcp/registry.js';
import { selectTools } from '../../src/mcp/select-tools.js';
import { resolveMirrorLocation } from '../../src/store/location.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const ROW = /^\| `npx invoicing-mcp([^`]*)` \| (\d+) tools(?:: ([^|]*))? \|$/gm;
const rows = [...readme.matchAll(ROW)].map((m) => ({
  flags: (m[1] as string).trim().split(/\s+/).filter(Boolean),
  count: Number(m[2]),
  words: m[3] ?? '',
}));

/** The tools a server started with these flags (no keys) lists to a client. */
function shown(flags: string[]): string[] {
  const options = parseServeOptions(flags, {});
  const mirror = resolveMirrorLocation({ setting: options.mirror, sandbox: true, baseUrl: 'http://127.0.0.1:8787', keyId: 'svck_test_x' });
  return selectTools(TOOLS, { readOnly: options.readOnly, toolsets: options.toolsets, books: mirror.kind !== 'off' }).map((t) => t.name);
}

const named = (words: string): string[] => [...words.matchAll(/`(\w+)`/g)].map((m) => m[1] as string);

describe('the tool counts the README states', () => {
  it('are each on a row that names its command', () => {
    expect(rows.length).toBeGreaterThan(1);
    expect([...readme.matchAll(/\b\d+ tools\b/g)]).toHaveLength(rows.length);
  });

  it.each(rows.map((r) => [r.flags.join(' ') || '(no flags)', r] as const))('%s', (_, row) => {
    const names = shown(row.flags);
    expect(names).toHaveLength(row.count);
    if (row.words.startsWith('all but')) {
      // "all but the answers" leaves out the tools that read the mirror; "all but `a` and `b`", those named.
      const left = row.words.startsWith('all but the answers') ? TOOLS.filter((t) => t.books).map((t) => t.name) : named(row.words);
      expect(left.length).toBeGreaterThan(0);
      expect(names).toEqual(TOOLS.map((t) => t.name).filter((n) => !left.includes(n)));
    } else if (named(row.words).length > 0) {
      expect(named(row.words)).toEqual(names);
    }
  });

  it('count the answer tools only while the mirror is on', () => {
    const withMirror = shown(['--read-only', '--toolsets', 'invoices,products']);
    const without = shown(['--read-only', '--toolsets', 'invoices,products', '--mirror', 'off']);
    expect(withMirror.filter((n) => !without.includes(n))).toEqual(
      TOOLS.filter((t) => t.books && withMirror.includes(t.name)).map((t) => t.name),
    );
    expect(withMirror.length).toBeGreaterThan(without.length);
  });
});
