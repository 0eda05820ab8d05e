// The README and docs/ stand alone: no path outside the repository (shared/...), and every relative link
// resolves to a file of the repository, and its #anchor to a heading there; the README stays short.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (file: string): Set<string> =>
  new Set([...readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] as string)));

describe.each(pages)('%s', (page) => {
  const text = readFileSync(join(root, page), 'utf8');

  it('names no path outside the repository', () => {
    expect(text).not.toMatch(/shared\//);
    expect(text).not.toMatch(/\/work\//);
  });

  it('has links that all resolve inside the repository', () => {
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((l) => !/^(https?:|mailto:)/.test(l));
    const broken = links.filter((link) => {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, page) : join(dirname(join(root, page)), path);
      if (relative(root, target).startsWith('..') || !existsSync(target)) return true;
      return anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});

describe('the README', () => {
  it('is at most 300 lines: the detail lives in docs/', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });
});
