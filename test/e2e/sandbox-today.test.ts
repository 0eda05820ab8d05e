// `invoicing-mcp sandbox --today YYYY-MM-DD` from the built CLI: the JSON line and the admin clock say the
// pinned day, and the books end the day before; a date that is not one is refused with the usage.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, listAll, type SandboxHandle, signIn } from '../contract/sandbox-http.js';

const root = new URL('../../', import.meta.url).pathname;
const cli = `${root}dist/bin/invoicing-mcp.mjs`;
let child: ChildProcess;
let ready: { base_url: string; admin_token: string; keys: SandboxHandle['keys']; today: string };

beforeAll(async () => {
  child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--json', '--today', '2030-01-31'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout! });
  ready = await new Promise((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
});

afterAll(() => {
  child.kill('SIGTERM');
});

describe('invoicing-mcp sandbox --today', () => {
  it('starts on the pinned day, with books that end the day before', async () => {
    expect(ready.today).toBe('2030-01-31');
    const sb = { baseUrl: ready.base_url, adminToken: ready.admin_token, keys: ready.keys } as SandboxHandle;
    expect((await admin(sb, 'GET', '/clock')).body.today).toBe('2030-01-31');
    const session = await signIn(sb.baseUrl, sb.keys.test);
    const issued = (await listAll(session, '/api/v1/invoices')).map((i) => i.issue_date).sort();
    expect(issued.at(-1)).toBe('2030-01-30');
  });

  it('refuses a day that is not a calendar date, exiting 2 with the usage', () => {
    const wrong = spawnSync(process.execPath, [cli, 'sandbox', '--today', '2030-02-30'], { encoding: 'utf8' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('--today must be a calendar date written YYYY-MM-DD, not "2030-02-30"');
    expect(wrong.stderr).toContain('usage: invoicing-mcp sandbox');
  });
});
