// The authorization server's outgoing fetch (src/hosted/oauth/public-fetch.ts) with its resolver and its
// idea of "public" given by the test, so that nothing leaves loopback: 127.0.0.1 stands for the public
// internet, and 127.0.0.2, where a listener counts connections, for an internal address. A name, an address
// in the URL and every redirect hop are checked before any connection; a name's answers are checked where
// the socket looks them up; answers are cut at a size while they stream, and a request at its deadline,
// which the test ends itself.
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotPublicError, publicFetch, type ResolvedAddress } from '../../src/hosted/oauth/public-fetch.js';

const PUBLIC = '127.0.0.1';
const INTERNAL = '127.0.0.2';

let site: Server;
let sitePort = 0;
let inside: ReturnType<typeof createTcpServer>;
let insidePort = 0;
let insideConnections = 0;
let siteRequests: string[] = [];
let resolved: string[] = [];
/** Ends the request in flight (its deadline), once the site has it. */
let deadline = new AbortController();
let flips = 0;

const DOCUMENT = JSON.stringify({
  client_id: 'http://docs.test/client.json',
  client_name: 'Assistant',
  redirect_uris: ['https://a.example/cb'],
});

function route(req: IncomingMessage, res: ServerResponse): void {
  siteRequests.push(req.url ?? '');
  const [path, query = ''] = (req.url ?? '').split('?');
  const to = new URLSearchParams(query).get('to');
  switch (path) {
    case '/client.json':
      res.setHeader('content-type', 'application/json').end(DOCUMENT);
      return;
    case '/redirect':
      res.writeHead(302, { location: to ?? '/client.json' }).end();
      return;
    case '/loop':
      res.writeHead(307, { location: '/loop' }).end();
      return;
    case '/big':
      // Chunked: no length declared, so only counting what streams in can stop it.
      res.setHeader('content-type', 'application/json');
      for (let i = 0; i < 20; i++) res.write('x'.repeat(1024));
      res.end();
      return;
    case '/big-declared':
      res.writeHead(200, { 'content-length': String(1024 * 1024) }).write('{');
      return;
    case '/no-content':
      res.writeHead(204).end();
      return;
    case '/not-modified':
      res.writeHead(304).end();
      return;
    case '/big-declared-whole':
      res.writeHead(200, { 'content-length': String(16 * 1024 + 1) }).end('x'.repeat(16 * 1024 + 1));
      return;
    case '/silent':
      deadline.abort(new Error('deadline'));
      return;
    case '/trickle':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"client_id":');
      return;
    default:
      res.writeHead(404).end();
  }
}

async function resolve(hostname: string): Promise<ResolvedAddress[]> {
  resolved.push(hostname);
  const v4 = (address: string) => ({ address, family: 4 });
  switch (hostname) {
    case 'docs.test':
      return [v4(PUBLIC)];
    case 'inside.test':
      return [v4(INTERNAL)];
    case 'mixed.test':
      return [v4(PUBLIC), v4(INTERNAL)];
    case 'flip.test':
      // Public when first asked, internal after: a name rebinding between hops.
      flips += 1;
      return [v4(flips === 1 ? PUBLIC : INTERNAL)];
    default:
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  }
}

const fetchPublic = publicFetch({
  timeoutMs: 60_000,
  maxBytes: 16 * 1024,
  maxRedirects: 3,
  resolve,
  isPublic: (address) => address === PUBLIC,
  deadline: () => deadline.signal,
});

beforeAll(async () => {
  site = createHttpServer(route);
  site.listen(0, PUBLIC);
  await once(site, 'listening');
  sitePort = (site.address() as { port: number }).port;
  inside = createTcpServer((socket) => {
    insideConnections += 1;
    socket.destroy();
  });
  inside.listen(0, INTERNAL);
  await once(inside, 'listening');
  insidePort = (inside.address() as { port: number }).port;
});

afterAll(async () => {
  site?.closeAllConnections();
  site?.close();
  inside?.close();
});

beforeEach(() => {
  siteRequests = [];
  resolved = [];
  insideConnections = 0;
  deadline = new AbortController();
  flips = 0;
});

const at = (host: string, path: string) => `http://${host}:${sitePort}${path}`;
const insideUrl = (host: string) => `http://${host}:${insidePort}/client.json`;
const redirectTo = (host: string, target: string) => at(host, `/redirect?to=${encodeURIComponent(target)}`);

describe('the outgoing fetch', () => {
  it('fetches from a name whose addresses are all public', async () => {
    const res = await fetchPublic(at('docs.test', '/client.json'), { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(DOCUMENT));
    expect(resolved).toEqual(['docs.test']);
  });

  it('refuses a name that resolves to an internal address, before connecting', async () => {
    await expect(fetchPublic(insideUrl('inside.test'))).rejects.toThrow(NotPublicError);
    expect(resolved).toEqual(['inside.test']);
    expect(insideConnections).toBe(0);
  });

  it('refuses a name with one internal address among public ones', async () => {
    await expect(fetchPublic(`http://mixed.test:${insidePort}/client.json`)).rejects.toThrow(/mixed\.test \(127\.0\.0\.2\)/);
    expect(insideConnections).toBe(0);
  });

  it('refuses an internal address written in the URL without looking anything up', async () => {
    await expect(fetchPublic(insideUrl(INTERNAL))).rejects.toThrow(NotPublicError);
    await expect(fetchPublic(`http://[::1]:${insidePort}/`)).rejects.toThrow(NotPublicError);
    expect(resolved).toEqual([]);
    expect(insideConnections).toBe(0);
  });

  it('refuses a redirect to an internal address, by name or written, before connecting', async () => {
    await expect(fetchPublic(redirectTo('docs.test', insideUrl('inside.test')))).rejects.toThrow(NotPublicError);
    await expect(fetchPublic(redirectTo('docs.test', insideUrl(INTERNAL)))).rejects.toThrow(NotPublicError);
    expect(siteRequests).toHaveLength(2);
    expect(insideConnections).toBe(0);
  });

  it('checks a name again at every hop: one that turns internal after the first is refused', async () => {
    await expect(fetchPublic(redirectTo('flip.test', `http://flip.test:${insidePort}/client.json`))).rejects.toThrow(
      /flip\.test \(127\.0\.0\.2\)/,
    );
    expect(resolved).toEqual(['flip.test', 'flip.test']);
    expect(insideConnections).toBe(0);
  });

  it('follows a few redirects to public addresses, no more; gives a redirect back when asked to', async () => {
    const followed = await fetchPublic(redirectTo('docs.test', at('docs.test', '/client.json')));
    expect(followed.status).toBe(200);
    expect(await followed.text()).toBe(DOCUMENT);
    await expect(fetchPublic(at('docs.test', '/loop'))).rejects.toThrow(/more than 3 redirects/);
    expect(siteRequests.filter((path) => path === '/loop')).toHaveLength(4);
    const manual = await fetchPublic(redirectTo('docs.test', insideUrl(INTERNAL)), { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(insideConnections).toBe(0);
  });

  it('refuses other schemes and requests that are not GETs', async () => {
    await expect(fetchPublic('file:///etc/passwd')).rejects.toThrow(/file: URLs are not fetched/);
    await expect(fetchPublic(at('docs.test', '/client.json'), { method: 'POST', body: '{}' })).rejects.toThrow(/only GET/);
    expect(siteRequests).toEqual([]);
  });

  it('cuts an answer past its size, counted as it streams or as declared', async () => {
    const res = await fetchPublic(at('docs.test', '/big'));
    await expect(res.text()).rejects.toThrow(/larger than 16384 bytes/);
    await expect(fetchPublic(at('docs.test', '/big-declared'))).rejects.toThrow(/larger than 16384 bytes/);
  });

  it('lets an answer with no body, or one refused whole, go without a fault (a bodiless answer once ended the process)', async () => {
    // An undici body destroyed unread after its request ended emits an error no one listens for: uncaught.
    const uncaught: unknown[] = [];
    const record = (err: unknown): void => void uncaught.push(err);
    process.on('uncaughtException', record);
    try {
      expect((await fetchPublic(at('docs.test', '/no-content'), { redirect: 'manual' })).status).toBe(204);
      expect((await fetchPublic(at('docs.test', '/not-modified'), { redirect: 'manual' })).status).toBe(304);
      await expect(fetchPublic(at('docs.test', '/big-declared-whole'))).rejects.toThrow(/larger than 16384 bytes/);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.off('uncaughtException', record);
    }
    expect(uncaught.map(String)).toEqual([]);
  });

  it('ends a request at its deadline, whether no answer has begun or its body is still coming', async () => {
    await expect(fetchPublic(at('docs.test', '/silent'))).rejects.toThrow(/deadline|abort/i);
    deadline = new AbortController();
    const res = await fetchPublic(at('docs.test', '/trickle'));
    deadline.abort(new Error('deadline'));
    await expect(res.text()).rejects.toThrow(/deadline|abort/i);
  });
});
