// The library's own request for a client ID metadata document, made through the settings the server gives
// it (src/hosted/oauth/client-documents.ts): the library hands its request, with a dispatcher of its own
// that checks an address only once connected, to our fetch, which alone connects; its body check holds a
// document to our 16 KB. A resolver and an idea of "public" given by the test keep everything on loopback:
// 127.0.0.1 stands for the internet, 127.0.0.2, where a listener counts connections, for an internal address.
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientDocumentSettings } from '../../src/hosted/oauth/client-documents.js';

type LibraryRequest = (provider: Provider, url: string, options: RequestInit) => Promise<Response>;
type LibraryBodyCheck = (provider: Provider, purpose: string, response: Response) => Promise<Buffer>;

// The library's helpers behind resolveClientByMetadataDocument (it has no export map; they have no types).
const helper = (name: string) => `oidc-provider/lib/helpers/${name}.js`;
const fetchRequest = ((await import(helper('fetch_request'))) as { default: LibraryRequest }).default;
const fetchBodyCheck = ((await import(helper('fetch_body_check'))) as { default: LibraryBodyCheck }).default;

const DOCUMENT = JSON.stringify({ client_id: 'x', redirect_uris: ['https://a.example/cb'] });

let site: Server;
let sitePort = 0;
let inside: ReturnType<typeof createTcpServer>;
let insidePort = 0;
let insideConnections = 0;
let provider: Provider;

beforeAll(async () => {
  site = createHttpServer((req, res) => {
    if (req.url === '/big.json') res.end(`"${'x'.repeat(17 * 1024)}"`);
    else if (req.url === '/moved.json') res.writeHead(302, { location: '/client.json' }).end();
    else res.setHeader('content-type', 'application/json').end(DOCUMENT);
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  sitePort = (site.address() as { port: number }).port;
  inside = createTcpServer((socket) => {
    insideConnections += 1;
    socket.destroy();
  });
  inside.listen(0, '127.0.0.2');
  await once(inside, 'listening');
  insidePort = (inside.address() as { port: number }).port;
  const settings = clientDocumentSettings(true, {
    resolve: async (hostname) => [{ address: hostname === 'docs.test' ? '127.0.0.1' : '127.0.0.2', family: 4 }],
    isPublic: (address) => address === '127.0.0.1',
  });
  provider = new Provider('http://127.0.0.1', {
    fetch: settings.fetch,
    fetchResponseBodyLimits: settings.fetchResponseBodyLimits,
    features: { clientIdMetadataDocument: settings.feature, devInteractions: { enabled: false } },
  });
});

afterAll(() => {
  site?.close();
  inside?.close();
});

/** The document at `url`, requested and read as the library does it. */
async function libraryReads(url: string): Promise<{ status: number; body: string }> {
  const res = await fetchRequest(provider, url, { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual' });
  if (res.status !== 200) return { status: res.status, body: '' };
  return { status: 200, body: (await fetchBodyCheck(provider, 'client_id metadata document', res)).toString() };
}

describe("the library's request for a client ID metadata document", () => {
  it('is made by our fetch, and reads a document at a public address', async () => {
    expect(await libraryReads(`http://docs.test:${sitePort}/client.json`)).toEqual({ status: 200, body: DOCUMENT });
  });

  it('reaches no internal address: our fetch refuses before connecting, the library never connects', async () => {
    await expect(libraryReads(`http://inside.test:${insidePort}/client.json`)).rejects.toThrow(/not a public address/);
    await expect(libraryReads(`http://127.0.0.2:${insidePort}/client.json`)).rejects.toThrow(/not a public address/);
    expect(insideConnections).toBe(0);
  });

  it('holds a document to 16 KB and does not follow its redirect', async () => {
    await expect(libraryReads(`http://docs.test:${sitePort}/big.json`)).rejects.toThrow(/too large/);
    expect((await libraryReads(`http://docs.test:${sitePort}/moved.json`)).status).toBe(302);
  });
});
