import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The MCP Bundles' own tests need `npm run bundle` first: `npm run test:bundle` (CI runs both).
    exclude: [...configDefaults.exclude, 'test/bundle/**'],
    // One Postgres for the run: the Postgres engine's tests each make a database of their own in it.
    globalSetup: ['test/support/postgres-global.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Contract and end-to-end tests start servers on loopback; two workers fit the 2-core machine.
    maxWorkers: 2,
    // The test files of a worker share one module graph: the code keeps no module-level state (house
    // rule), and loading the sandbox, the SDKs and fastify once per worker instead of once per file
    // halves the suite's CPU time.
    isolate: false,
  },
});
