// HTTP mode under load, scaled down from the benchmark (`node bench/run.mjs http` runs it at full size): a
// hog holds GET streams past its share, a bystander works throughout, and in turn 16 sessions of the SDK's
// client come and go without DELETE, 100 stateless requests arrive at once, and an abandoner opens 120
// sessions it never ends, on a server with a connection cap of 96. Nobody but the hog and the abandoner is
// refused, and nobody is cut off. (That abandoned sessions end after the idle timeout is held by
// test/contract/mcp-session-cap.test.ts on an injected clock, and by the benchmark.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runHttpLoad } from '../../bench/support/http-load.mjs';
import { type HttpServer, spawnHttpServer } from './support/server.js';

const STREAMS_PER_CLIENT = 24;
const SESSIONS_PER_CLIENT = 100;

let server: HttpServer;
beforeAll(async () => {
  server = await spawnHttpServer([
    '--max-connections',
    '96',
    '--max-streams-per-client',
    String(STREAMS_PER_CLIENT),
    '--max-sessions-per-client',
    String(SESSIONS_PER_CLIENT),
    '--max-sessions',
    '250',
    '--mirror',
    'off',
  ]);
});
afterAll(() => server?.close());

it('sessions, a burst, a stream hog and abandoned sessions: only the hog and the abandoner are refused, nobody is cut off', async () => {
  const sizes = { sessions: 16, stateless: 100, streams: 32, abandoned: 120 };
  const report = await runHttpLoad({ url: server.url, sizes });
  expect(report.hog).toEqual({ 200: STREAMS_PER_CLIENT, 429: sizes.streams - STREAMS_PER_CLIENT });
  expect(report.sessions, report.sessions.reasons.join('; ')).toMatchObject({ ok: sizes.sessions, failed: 0 });
  expect(report.stateless, report.stateless.reasons.join('; ')).toMatchObject({ ok: sizes.stateless, failed: 0 });
  const abandoned = report.abandoned.statuses as Record<string, number>;
  expect(Object.keys(abandoned).filter((status) => status !== '200' && status !== '429')).toEqual([]);
  expect(abandoned).toEqual({ 200: SESSIONS_PER_CLIENT, 429: sizes.abandoned - SESSIONS_PER_CLIENT });
  expect(report.abandoned.bystanderInitialize).toBe(200);
  expect(report.bystander.errors).toEqual([]);
  expect(report.bystander.calls).toBeGreaterThan(0);
}, 60_000);
