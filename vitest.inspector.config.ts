import { defineConfig } from 'vitest/config';

// The real MCP Inspector signing in to hosted mode: `npm run test:inspector` (it installs the Inspector from
// the npm registry on its first run). `npm run test:all` plays the Inspector's requests instead (hosted-inspector).
export default defineConfig({
  test: {
    include: ['test/inspector/**/*.test.ts'],
    globalSetup: ['test/support/postgres-global.ts', 'test/inspector/install-inspector.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
