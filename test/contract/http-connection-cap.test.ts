// Contract: the connection cap of every HTTP listener, on a plain handler. One client whose pool wants more
// connections than the cap gets every answer (newcomers wait for a place; no socket is closed under a
// request), another client gets in meanwhile, and the place a newcomer waits for is freed by the address
// holding the most (told to close after its answer), not by a client with one (told a short keep-alive).
import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Pool } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { createLimitedServer, DEFAULT_HTTP_LIMITS, limitedFastify } from '../../src/http/limits.js';

let server: Server | null = null;
const pools: Pool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.destroy()));
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

async function start(maxConnections: number, table: Parameters<typeof createLimitedServer>[3] = {}): Promise<string> {
  server = createLimitedServer(
    (req, res) => {
      req.resume();
      req.once('end', () => setTimeout(() => res.end('ok'), 2));
    },
    { ...DEFAULT_HTTP_LIMITS, maxConnections },
    undefined,
    table,
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function pool(origin: string, connections: number, localAddress?: string): Pool {
  const p = new Pool(origin, { connections, pipelining: 1, ...(localAddress ? { localAddress } : {}) });
  pools.push(p);
  return p;
}

async function post(p: Pool): Promise<string> {
  const res = await p.request({ method: 'POST', path: '/mcp', body: '{"jsonrpc":"2.0"}', headers: { 'content-type': 'application/json' } });
  return res.body.text();
}

it('a client wanting half again the cap gets every answer, and another client gets in meanwhile', async () => {
  const origin = await start(16);
  const busy = pool(origin, 24);
  const loops = Array.from({ length: 24 }, async () => {
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) answers.push(await post(busy));
    return answers;
  });
  const other = pool(origin, 1, '127.0.0.2');
  const theirs = await Promise.all(Array.from({ length: 4 }, () => post(other)));
  const settled = await Promise.allSettled(loops);
  const failures = settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason));
  expect(failures).toEqual([]);
  expect(theirs).toEqual(['ok', 'ok', 'ok', 'ok']);
});

/** A raw keep-alive connection from `localAddress`, and a way to send it a request and read the answer's head. */
async function rawConnection(origin: string, localAddress: string) {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  const gone = once(socket, 'close');
  await once(socket, 'connect');
  const ask = async (): Promise<string> => {
    const answer = once(socket, 'data');
    socket.write(`GET / HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    return String((await answer)[0]).toLowerCase();
  };
  return { socket, ask, gone };
}

it('at the cap, the address holding the most is told to close after its answer; another client is told a short keep-alive', async () => {
  const origin = await start(4, { hintMs: 3_000 });
  const theirs = await rawConnection(origin, '127.0.0.2');
  const mine = [
    await rawConnection(origin, '127.0.0.1'),
    await rawConnection(origin, '127.0.0.1'),
    await rawConnection(origin, '127.0.0.1'),
  ];
  for (const c of [theirs, ...mine]) expect(await c.ask()).toContain('connection: keep-alive');
  // A newcomer at the cap waits, unread: no idle connection is closed under its client.
  const newcomer = await rawConnection(origin, '127.0.0.3');
  const admitted = newcomer.ask();
  const theirAnswer = await theirs.ask();
  expect(theirAnswer).toContain('keep-alive: timeout=3');
  expect(theirAnswer).not.toContain('connection: close');
  const myAnswer = await (mine[0] as Awaited<ReturnType<typeof rawConnection>>).ask();
  expect(myAnswer).toContain('connection: close');
  await mine[0]?.gone;
  expect(await admitted).toContain('200 ok');
  expect(theirs.socket.destroyed).toBe(false);
  for (const c of [theirs, ...mine, newcomer]) c.socket.destroy();
});

it('at the cap, a connection whose request head is still arriving after the grace makes room for a newcomer', async () => {
  const origin = await start(4, { graceMs: 100, tickMs: 20 });
  const { port } = new URL(origin);
  const slow = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      socket.on('error', () => undefined);
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      return socket;
    }),
  );
  const closed = slow.map((s) => once(s, 'close').then(() => true));
  const started = performance.now();
  expect(await post(pool(origin, 1, '127.0.0.2'))).toBe('ok');
  // Long before the headers timeout (15 s) would have freed a place.
  expect(performance.now() - started).toBeLessThan(3_000);
  expect(await Promise.race([Promise.any(closed), new Promise((r) => setTimeout(() => r(false), 1_000))])).toBe(true);
  for (const s of slow) s.destroy();
});

it('one address opening silent connections without end does not keep another client out', async () => {
  const origin = await start(8, { graceMs: 100, tickMs: 20, maxWaiting: 16, maxWaitMs: 5_000 });
  const { port } = new URL(origin);
  const flood: ReturnType<typeof connect>[] = [];
  const silent = (): void => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    flood.push(socket);
  };
  for (let i = 0; i < 8; i++) silent();
  // Two hundred a second, none saying a word: every place taken, the waiting room full of them.
  const flooding = setInterval(() => {
    for (let i = 0; i < 2; i++) silent();
  }, 10);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 5; i++) {
      const other = await rawConnection(origin, '127.0.0.2');
      const head = await Promise.race([
        other.ask(),
        other.gone.then(() => 'closed'),
        new Promise((r) => setTimeout(() => r('no answer in 3 s'), 3_000)),
      ]);
      expect(String(head)).toMatch(/^http\/1\.1 200 /);
      other.socket.destroy();
    }
  } finally {
    clearInterval(flooding);
    for (const socket of flood) socket.destroy();
  }
});

it('connections one address keeps idle past the keep-alive it was told make room for another client', async () => {
  const origin = await start(8, { graceMs: 100, tickMs: 20, hintMs: 1_000 });
  // Each asks once (its answer says Keep-Alive: timeout=1 from half the cap on), then keeps its socket idle.
  const idle = await Promise.all(Array.from({ length: 8 }, () => rawConnection(origin, '127.0.0.1')));
  const heads = await Promise.all(idle.map((c) => c.ask()));
  expect(heads.filter((h) => h.includes('keep-alive: timeout=1')).length).toBeGreaterThanOrEqual(4);
  const other = await rawConnection(origin, '127.0.0.2');
  // Long before the idle timeout (30 s) would have freed a place.
  const head = await Promise.race([other.ask(), new Promise((r) => setTimeout(() => r('no answer in 5 s'), 5_000))]);
  expect(String(head)).toMatch(/^http\/1\.1 200 /);
  for (const c of [...idle, other]) c.socket.destroy();
});

it('from half the cap on, an answer fastify sent at once (a malformed URL) is let be, and the listener lives', async () => {
  const app = await limitedFastify({ limits: { ...DEFAULT_HTTP_LIMITS, maxConnections: 4 }, bodyLimit: 1_000, log: () => undefined });
  app.get('/healthz', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  server = app.server;
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const held = await Promise.all([1, 2].map(() => rawConnection(origin, '127.0.0.1')));
  const bad = await rawConnection(origin, '127.0.0.2');
  const answer = once(bad.socket, 'data');
  bad.socket.write('GET /%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  expect(String((await answer)[0])).toMatch(/^HTTP\/1\.1 400 /);
  expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  for (const c of [...held, bad]) c.socket.destroy();
});
