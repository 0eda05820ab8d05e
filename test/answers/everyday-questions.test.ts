// The everyday questions (questions.ts), each asked through a real MCP client of the server (in-process-server.ts, on a
// standalone sandbox, live key) in at most two calls, on one mirror per round: the first question finds it
// cold, the rest warm. Rounds: the sample books at scale 1 on SQLite and on Postgres, and at scale 10 on
// SQLite, where lists ask for 150 groups and this quarter's products and the last 90 days' payers run past
// that, so the groups left out are checked too. Every figure is checked against the test's own ground truth.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { type Connected, connectClient } from '../e2e/support/clients.js';
import { ENGINES, mirrorSetting } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { answerOf, type RawBooks, readRawBooks } from './ground-truth.js';
import { startInProcessServer } from './in-process-server.js';
import { QUESTIONS, TODAY } from './questions.js';

const ROUNDS = [
  [1, 400, 'sqlite'],
  [1, 400, 'postgres'],
  [10, 150, 'sqlite'],
] as const;

describe.each(ROUNDS.filter(([, , engine]) => ENGINES.includes(engine)))(
  'at --scale %i (up to %i groups), mirror on %s',
  (scale, limit, engine) => {
    let sb: TestSandbox;
    let books: RawBooks;
    let mcp: Connected;
    let calls = 0;

    const ask = (name: string, args: Record<string, unknown> = {}): Promise<Json> => {
      calls++;
      return answerOf(mcp.client, name, args);
    };

    beforeAll(async () => {
      sb = await startTestSandbox({ scale, today: TODAY, rateLimit: 1_000_000 });
      books = await readRawBooks(sb.baseUrl, sb.keys.live);
      const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_POLL_SECONDS: '5' };
      const mirror = await mirrorSetting(engine, `everyday_${scale}`);
      mcp = await connectClient('v2', { linked: await startInProcessServer(env, { mirror }) });
    }, 120_000);
    afterAll(async () => {
      await mcp?.close();
      await sb?.close();
    });

    it.each(QUESTIONS.map((q) => [q.title, q] as const))('%s', async (_title, question) => {
      const before = calls;
      await question.run({ ask, books, limit });
      expect(calls - before).toBe(question.calls ?? 1);
    });
  },
);
