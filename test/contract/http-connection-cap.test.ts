// Contract: the connection cap of every HTTP listener, on a plain handler. One client whose pool wants more
// connections than the cap gets every answer (newcomers wait for a place; no socket is closed under a
// request), another client gets in meanwhile, and when the cap must close a quiet connection it takes it
// from the address holding the most, not from a client with one.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { Pool } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { createLimitedServer, DEFAULT_HTTP_LIMITS } from '../../src/http/limits.js';

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

/** A raw keep-alive connection that has made one request and sits idle; resolves once answered. */
async function idleConnection(
  origin: string,
  localAddress: string,
): Promise<{ socket: Socket; closed: () => boolean; gone: Promise<unknown> }> {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  let closed = false;
  const gone = once(socket, 'close').then(() => (closed = true));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(`GET / HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  await once(socket, 'data');
  return { socket, closed: () => closed, gone };
}

it('at the cap, a quiet connection of the address holding the most makes room, not the only one of another', async () => {
  let clock = 1_000_000;
  const origin = await start(4, { now: () => clock, graceMs: 1_000, idleGraceMs: 10_000, tickMs: 10 });
  // The other client's connection is the oldest: the cap still leaves it.
  const theirs = await idleConnection(origin, '127.0.0.2');
  clock += 10;
  const mine = [
    await idleConnection(origin, '127.0.0.1'),
    await idleConnection(origin, '127.0.0.1'),
    await idleConnection(origin, '127.0.0.1'),
  ];
  // Just answered: no connection is displaced within the grace, so the newcomer waits for a place.
  const newcomer = connect({ host: '127.0.0.1', port: Number(new URL(origin).port), localAddress: '127.0.0.3' });
  newcomer.on('error', () => undefined);
  await once(newcomer, 'connect');
  newcomer.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await new Promise((r) => setTimeout(r, 50));
  expect([theirs.closed(), ...mine.map((m) => m.closed())]).toEqual([false, false, false, false]);
  clock += 10_000;
  await once(newcomer, 'data');
  await Promise.race(mine.map((m) => m.gone));
  expect(theirs.closed()).toBe(false);
  expect(mine.filter((m) => m.closed()).length).toBe(1);
  for (const c of [theirs, ...mine]) c.socket.destroy();
  newcomer.destroy();
});
