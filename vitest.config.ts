import { configDefaults, defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first.js';
import { ALL_EXCLUDED } from './test/support/tiers.js';

// Two tiers. `npm test` runs vitest.quick.config.ts: the unit, contract and answer tests with no Postgres, and
// a short end-to-end smoke. `npm run test:all` runs this config: every file below test/, Postgres and one
// Chromium started once for the run. A new test file lands in a tier by its folder (and `postgres` in its name).

/** What both tiers share. */
export const COMMON = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // Contract and end-to-end tests start servers on loopback and wait on them and on the network: more
  // workers than cores keep the two cores busy. Three since most servers run inside the workers and no file
  // waits on kept-alive connections at its end: 51 s a run against 53 s with four (which load every module
  // once more) and 59 s with two, in runs taken in turns.
  maxWorkers: 3,
  // A worker makes many short-lived objects (sandboxes, clients, HTTP bodies, in-process servers): a larger
  // young generation spends less of its time in scavenges (32 MB saved about 4% of the suite's CPU against
  // the default in paired runs; 64 MB about 2% more than 32, now that servers run in the workers).
  execArgv: ['--max-semi-space-size=64'],
  // The test files of a worker share one module graph: the code keeps no module-level state (house
  // rule), and loading the sandbox, the SDKs and fastify once per worker instead of once per file
  // halves the suite's CPU time.
  isolate: false,
  // The slowest files first, by their times in an earlier run (test/durations.json), on a fresh clone too.
  sequence: { sequencer: SlowFirstSequencer },
};

export default defineConfig({
  test: {
    ...COMMON,
    include: ['test/**/*.test.ts'],
    // The MCP Bundles' own tests need `npm run bundle` first: `npm run test:bundle` (CI runs both). The real
    // MCP Inspector's run on request: `npm run test:inspector`.
    exclude: [...configDefaults.exclude, ...ALL_EXCLUDED],
    // One Postgres and one Chromium for the run, each started beside the first test files.
    globalSetup: ['test/support/postgres-global.ts', 'test/support/chromium-global.ts'],
  },
});
