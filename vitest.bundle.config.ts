import { defineConfig } from 'vitest/config';

// The tests of the MCP Bundles that `npm run bundle` made (the files at the repository's root).
export default defineConfig({
  test: {
    include: ['test/bundle/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
