// `npm run test:durations`: runs the suite once and writes each test file's time (ms, rounded to 100) to
// test/durations.json, which orders the next runs' files slowest first (test/support/slow-first.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const folder = mkdtempSync(join(tmpdir(), 'invoicing-mcp-durations-'));
const report = join(folder, 'report.json');
try {
  execFileSync('npx', ['vitest', 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
  const durations = Object.fromEntries(
    testResults
      .map((file) => [relative(root, file.name).split('\\').join('/'), Math.round((file.endTime - file.startTime) / 100) * 100])
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(join(root, 'test', 'durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
  process.stderr.write(`test/durations.json: ${testResults.length} files\n`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
