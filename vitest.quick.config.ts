import { configDefaults, defineConfig } from 'vitest/config';
import { QUICK_FOLDERS, SMOKE } from './test/support/tiers.js';
import { COMMON } from './vitest.config.js';

// The quick tier, `npm test`: no Postgres and no browser are started, so a test that runs on each engine runs
// on SQLite alone here (test/support/postgres.ts). `npm run test:all` runs everything (vitest.config.ts).
export default defineConfig({
  test: {
    ...COMMON,
    include: [...QUICK_FOLDERS.map((folder) => `${folder}/**/*.test.ts`), ...SMOKE],
    exclude: [...configDefaults.exclude, '**/*postgres*'],
  },
});
