// The two tiers' lists, read by vitest.config.ts (`npm run test:all`), vitest.quick.config.ts (`npm test`)
// and the test that holds them (test/unit/test-tiers.test.ts).

/** The quick tier: these folders, less any file with `postgres` in its name, and the smoke below. */
export const QUICK_FOLDERS = ['test/unit', 'test/contract', 'test/answers'];

/** The end-to-end smoke of the quick tier: the built server over stdio, and over HTTP. */
export const SMOKE = ['test/e2e/mcp-stdio.test.ts', 'test/e2e/mcp-http-shared.test.ts'];

/** The files that drive the run's one Chromium (chromium-global.ts launches it only for a run holding one). */
export const BROWSER = [
  'test/e2e/views-browser.test.ts',
  'test/e2e/hosted-browser.test.ts',
  'test/e2e/hosted-conformance.test.ts',
  'test/e2e/hosted-signin-spending.test.ts',
];

/** Test folders neither tier runs: the MCP Bundles' (`npm run test:bundle`) and the real Inspector's. */
export const ALL_EXCLUDED = ['test/bundle/**', 'test/inspector/**'];

/** End-to-end files over 10 s a run (test/durations.json), each with what it spends that time on. */
export const SLOW_E2E: Record<string, string> = {
  'test/e2e/tasks-answers.test.ts': 'tasks over stdio and HTTP on a sandbox paced like the service (20 calls per 5 s)',
  'test/e2e/hosted-processes.test.ts': 'two hosted processes on one Postgres, signed in, restarted for a vault key rotation',
  'test/e2e/hosted-under-attack.test.ts': 'Postgres SIGKILLed and started again five times under two hosted processes',
  'test/e2e/views-browser.test.ts': 'every view laid out, clicked and audited by axe-core in Chromium, light and dark',
  'test/e2e/hosted-browser.test.ts': 'the OAuth sign-in flow in Chromium, flow after flow, against a hosted process',
  'test/e2e/mirror-crashes.test.ts': 'the server SIGKILLed ten times during a sync paced like a distant service',
  'test/e2e/npm-pack.test.ts': '`npm pack` and an install into an empty folder, then the packed bin and library run',
  'test/e2e/tasks-takeover-postgres.test.ts': 'two processes on a Postgres mirror, one killed while it reads lines',
  'test/e2e/data-paths.test.ts': 'both data paths run three times under V8 precise coverage',
  'test/e2e/http-load.test.ts': 'hundreds of sessions and requests against one HTTP server with a connection cap',
  'test/e2e/hosted-key-refused.test.ts': 'refusals by suspension, revocation and regeneration, each through every grant',
  'test/e2e/hosted-vault-rolling.test.ts': 'three hosted processes in turn, a rolling deploy of a vault key and a reseal',
  'test/e2e/mirror-command.test.ts': 'servers syncing a file and a Postgres mirror, the command run for each state',
};
