// Every everyday question (questions.ts) as the first question of a new mirror: one call (two where a
// search or a second page comes first) fills what the answer reads and answers exactly, at once. Each
// question gets a server of its own on an empty mirror (in-process-server.ts); the ground truth is the test's own.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../contract/sandbox-http.js';
import { connectClient } from '../e2e/support/clients.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { answerOf, type RawBooks, readRawBooks } from './ground-truth.js';
import { startInProcessServer } from './in-process-server.js';
import { QUESTIONS, TODAY } from './questions.js';

// Scale 1 in every run; more scales when asked (ANSWERS_COLD_SCALES=1,10: about a second a question at 10,
// too long for the suite's minute), with 150 groups asked for beyond scale 1, as the warm rounds do.
const SCALES = (process.env.ANSWERS_COLD_SCALES ?? '1').split(',').map(Number);

describe.each(SCALES.map((scale) => [scale, scale === 1 ? 400 : 150] as const))('on a new mirror, at --scale %i', (scale, limit) => {
  let sb: TestSandbox;
  let books: RawBooks;

  beforeAll(async () => {
    sb = await startTestSandbox({ scale, today: TODAY, rateLimit: 1_000_000 });
    books = await readRawBooks(sb.baseUrl, sb.keys.live);
  }, 60_000);
  afterAll(async () => {
    await sb?.close();
  });

  it.each(QUESTIONS.map((q) => [q.title, q] as const))('%s', async (_title, question) => {
    // No background rounds: the question's own fresh reads fill the mirror.
    const env = { SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: sb.keys.live.key_id, SVC_SECRET: sb.keys.live.secret, SVC_POLL_SECONDS: '0' };
    const server = await connectClient('v2', { linked: await startInProcessServer(env, { mirror: 'memory' }) });
    let calls = 0;
    const ask = (name: string, args: Record<string, unknown> = {}): Promise<Json> => {
      calls++;
      return answerOf(server.client as never, name, args);
    };
    try {
      await question.run({ ask, books, limit });
      expect(calls).toBe(question.calls ?? 1);
    } finally {
      await server.close();
    }
  });
});
