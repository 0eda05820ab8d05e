// Runs every benchmark (bench/*.bench.mjs) one after another, each in its own process, against the
// built code in dist/. Figures go to stdout; a bench that fails makes the run fail.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const dir = new URL('.', import.meta.url).pathname;
const only = process.argv[2];
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs') && (!only || f.includes(only)))
  .sort();
let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n== ${file}\n`);
  const run = spawnSync(process.execPath, [`${dir}${file}`], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
