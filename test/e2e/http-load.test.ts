// HTTP mode under load, scaled down from the benchmark (`node bench/run.mjs http` runs it at full size): a
// hog holds GET streams past its share, a bystander works throughout, and in turn 20 sessions of the SDK's
// client come and go without DELETE, 120 stateless requests arrive at once, and an abandoner opens 150
// sessions it never ends, on a server with a connection cap of 96 and a session idle timeout of a second.
// Nobody but the hog and the abandoner is refused, and nobody is cut off.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runHttpLoad } from '../../bench/support/http-load.mjs';
import { type HttpServer, spawnHttpServer } from './support/server.js';

const IDLE_S = 1;
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
    '--session-idle-timeout',
    String(IDLE_S),
    '--mirror',
    'off',
  ]);
});
afterAll(() => server?.close());

it('sessions, a burst, a stream hog and abandoned sessions: only the hog and the abandoner are refused, nobody is cut off', async () => {
  const sizes = { sessions: 20, stateless: 120, streams: 40, abandoned: 150 };
  const report = await runHttpLoad({
    url: server.url,
    sizes,
    afterIdle: () => new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000 + 200)),
  });
  expect(report.hog).toEqual({ 200: STREAMS_PER_CLIENT, 429: sizes.streams - STREAMS_PER_CLIENT });
  expect(report.sessions).toMatchObject({ ok: sizes.sessions, failed: 0 });
  expect(report.stateless).toMatchObject({ ok: sizes.stateless, failed: 0 });
  const abandoned = report.abandoned.statuses as Record<string, number>;
  expect(Object.keys(abandoned).filter((status) => status !== '200' && status !== '429')).toEqual([]);
  expect(abandoned['200']).toBeGreaterThanOrEqual(SESSIONS_PER_CLIENT);
  expect(report.abandoned.bystanderInitialize).toBe(200);
  // Past the idle timeout the abandoned sessions are gone: the abandoner is let in again.
  expect(report.afterIdle.initialize).toBe(200);
  expect(report.bystander.errors).toEqual([]);
  expect(report.bystander.calls).toBeGreaterThan(0);
}, 60_000);
