// The test tiers as test/support/tiers.ts writes them: the quick tier's smoke starts nothing the quick tier has
// not (no Postgres, no browser), every file that drives the browser is listed, and every end-to-end file over
// 10 s in the last timed run is listed with the reason it takes so long.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sourceFilesUnder } from '../support/source-scan.js';
import { BROWSER, SLOW_E2E, SMOKE } from '../support/tiers.js';

const root = new URL('../..', import.meta.url).pathname;
const durations = JSON.parse(readFileSync(`${root}test/durations.json`, 'utf8')) as Record<string, number>;

describe('the test tiers', () => {
  it('smoke with files that need neither Postgres nor a browser', () => {
    for (const file of SMOKE) {
      expect(existsSync(`${root}${file}`), file).toBe(true);
      expect(readFileSync(`${root}${file}`, 'utf8'), file).not.toMatch(/support\/(postgres|chromium)\.js/);
    }
  });

  it('list every test file that drives the browser, for the run to start one only then', () => {
    const driving = sourceFilesUnder(root, ['test/e2e']).filter(
      (file) =>
        file.endsWith('.test.ts') &&
        /support\/chromium\.js|support\/browser-deployment\.js|views\/harness\.js/.test(readFileSync(`${root}${file}`, 'utf8')),
    );
    expect(driving.sort()).toEqual([...BROWSER].sort());
  });

  it('list every end-to-end file over 10 s with its reason, and only files that exist', () => {
    const slow = Object.entries(durations).filter(([file, ms]) => file.startsWith('test/e2e/') && ms > 10_000);
    expect(slow.map(([file]) => file).filter((file) => !(file in SLOW_E2E))).toEqual([]);
    for (const [file, reason] of Object.entries(SLOW_E2E)) {
      expect(existsSync(`${root}${file}`), file).toBe(true);
      expect(reason.length, file).toBeGreaterThan(20);
    }
  });
});
