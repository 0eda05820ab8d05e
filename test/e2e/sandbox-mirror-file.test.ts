// The embedded sandbox with `--mirror PATH`: the banner names the file (not "in memory"), the file is written,
// and the next start (new sandbox keys, new books) rebuilds it instead of refusing it as another key's.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { connectClient } from './support/clients.js';
import { spawnHttpServer } from './support/server.js';

it('names its file in the banner, and a second start rebuilds the file rather than refusing it', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sandbox-mirror-')), 'books.db');
  for (const run of [1, 2]) {
    const server = await spawnHttpServer(['--mirror', path]);
    try {
      for (let i = 0; i < 50 && !server.stderr().includes('Mirror:'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(server.stderr(), `run ${run}`).toContain(
        `Mirror: ${path}, read from the sandbox when a tool first asks; rebuilt at each start`,
      );
      const c = await connectClient('v2', { http: server.url });
      try {
        const owed = await c.client.callTool({ name: 'report_owed', arguments: {} });
        expect(owed.isError, `run ${run}`).toBeFalsy();
        expect(owed.structuredContent.currencies.length).toBeGreaterThan(0);
      } finally {
        await c.close();
      }
      expect(existsSync(path)).toBe(true);
      expect(server.stderr(), `run ${run}`).not.toMatch(/another key|keeping the mirror in memory/);
    } finally {
      await server.close();
    }
  }
});
