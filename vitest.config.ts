import { configDefaults, defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/slow-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The MCP Bundles' own tests need `npm run bundle` first: `npm run test:bundle` (CI runs both). The real
    // MCP Inspector's run on request: `npm run test:inspector`.
    exclude: [...configDefaults.exclude, 'test/bundle/**', 'test/inspector/**'],
    // One Postgres for the run: the Postgres engine's tests each make a database of their own in it.
    globalSetup: ['test/support/postgres-global.ts'],
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
  },
});
