import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The MCP Bundles' own tests need `npm run bundle` first: `npm run test:bundle` (CI runs both).
    exclude: [...configDefaults.exclude, 'test/bundle/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Contract and end-to-end tests start servers on loopback; two workers fit the 2-core machine.
    maxWorkers: 2,
  },
});
