// Forwarded headers are a proxy's words, not a client's: every URL the authorization server writes comes from
// --public-url. Without --trust-proxy, X-Forwarded-Host, X-Forwarded-Proto and Forwarded are ignored (and so
// is a host written in the request line); with it, they are read only from the proxy, and a forwarded host
// that is not the public URL's is refused. The discovery documents say how long a shared cache may keep them
// and which request headers they vary on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn } from './support/form-sign-in.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { authorizationRequest, registerClient } from './support/pkce-flow.js';
import { rawExchange } from './support/raw-http.js';

const EVIL = 'evil.example';
const FORGED = { 'x-forwarded-host': EVIL, 'x-forwarded-proto': 'https', forwarded: `host=${EVIL};proto=https` };
const DISCOVERY = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];
const REDIRECT = 'http://127.0.0.1:9/callback';

let sb: TestSandbox;
/** No proxy trusted. */
let open: HostedServer;
/** Behind a proxy on 127.0.0.1, as the tests' requests come from. */
let proxied: HostedServer;

// A minute: the run's Postgres may still be starting, and a worker's first hosted server loads the OAuth library.
beforeAll(async () => {
  sb = await startTestSandbox();
  const [first, second] = await Promise.all([postgresDatabase('forwarded_open'), postgresDatabase('forwarded_proxied')]);
  open = await startHostedServer({ sandbox: sb, database: first, vaultKey: newVaultKey() });
  proxied = await startHostedServer({ sandbox: sb, database: second, vaultKey: newVaultKey(), args: ['--trust-proxy', '127.0.0.1'] });
}, 60_000);

afterAll(async () => {
  await open?.close();
  await proxied?.close();
  await sb?.close();
});

/** Every string in a JSON document that looks like a URL. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z]+:\/\//i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

async function discovery(server: HostedServer, path: string, headers: Record<string, string>) {
  const res = await fetch(`${server.origin}${path}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Every URL of the metadata is on the public origin, and none names the forged host. */
function expectPublicUrls(server: HostedServer, text: string): void {
  expect(text).not.toContain(EVIL);
  const urls = urlsIn(JSON.parse(text));
  expect(urls.length).toBeGreaterThan(4);
  for (const url of urls) expect(url.startsWith(`${server.origin}/`) || url === server.origin, url).toBe(true);
}

/**
 * A sign-in with `headers` on every request, Allowed: each redirect it met (never to a host but ours and the
 * client's) and the code it brought back.
 */
async function signInWith(server: HostedServer, headers: Record<string, string>) {
  const locations: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    if (url.origin !== server.origin) throw new Error(`the sign-in was sent to ${url.href}`);
    const res = await fetch(input, init);
    const location = res.headers.get('location');
    if (location) locations.push(new URL(location, url).href);
    return res;
  };
  const clientId = await registerClient(server.origin, REDIRECT);
  const { url } = authorizationRequest(server, clientId, REDIRECT);
  const flow = await openSignIn(url, REDIRECT, server.origin, recording, headers);
  const back = await flow.allow(await flow.continueWith({ keyId: sb.keys.live.key_id, secret: sb.keys.live.secret }));
  return { locations, code: back.get('code') };
}

/** The sign-in brought a code back, and every redirect on the way was to the public origin or the client. */
function expectOnlyOurs(server: HostedServer, signIn: { locations: string[]; code: string | null }): void {
  expect(signIn.code).toBeTruthy();
  expect(signIn.locations.length).toBeGreaterThan(2);
  for (const location of signIn.locations)
    expect(location.startsWith(`${server.origin}/`) || location.startsWith(REDIRECT), location).toBe(true);
}

describe('without --trust-proxy', () => {
  it('writes every metadata URL from --public-url, whatever forwarded headers a client sends', async () => {
    for (const path of DISCOVERY) {
      const answer = await discovery(open, path, FORGED);
      expect(answer.status).toBe(200);
      expectPublicUrls(open, answer.text);
      expect(JSON.parse(answer.text).issuer).toBe(open.origin);
    }
  });

  it('ignores a host written in the request line', async () => {
    const { host } = new URL(open.origin);
    const request = `GET http://${EVIL}${DISCOVERY[0]} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    const answer = await rawExchange(open.origin, request, 5_000);
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(EVIL);
  });

  it('sends a sign-in started with forged headers back only to the public origin and the client', async () => {
    expectOnlyOurs(open, await signInWith(open, FORGED));
  });

  it('lets a shared cache keep the discovery documents, varying on the headers that change them', async () => {
    for (const path of [...DISCOVERY, '/.well-known/oauth-protected-resource/mcp']) {
      const answer = await discovery(open, path, {});
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      const vary = (answer.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
      expect(vary).toEqual(expect.arrayContaining(['origin', 'x-forwarded-host', 'forwarded']));
    }
  });
});

describe('with --trust-proxy', () => {
  const publicHost = () => new URL(proxied.origin).host;

  it("takes the proxy's forwarded host when it is the public URL's, and still writes every URL from --public-url", async () => {
    for (const headers of [
      { 'x-forwarded-host': publicHost(), 'x-forwarded-proto': 'https' },
      { forwarded: `for=192.0.2.7;host="${publicHost()}";proto=https` },
    ]) {
      const answer = await discovery(proxied, DISCOVERY[0] as string, headers);
      expect(answer.status).toBe(200);
      expectPublicUrls(proxied, answer.text);
    }
  });

  it("refuses a forwarded host that is not the public URL's, saying which header named it", async () => {
    for (const headers of [
      { 'x-forwarded-host': EVIL },
      { 'x-forwarded-host': `${publicHost()}, ${EVIL}` },
      { forwarded: `host=${EVIL}` },
      { forwarded: `host="${publicHost()}", host=${EVIL}` },
    ]) {
      for (const path of [DISCOVERY[0] as string, '/oauth/authorize']) {
        const answer = await discovery(proxied, path, headers);
        expect(answer.status, JSON.stringify(headers)).toBe(403);
        expect(answer.text).toMatch(/(X-Forwarded-Host|Forwarded) .*evil\.example.* is not this deployment's public host/);
        expect(answer.headers.get('cache-control')).toBe('no-store');
      }
    }
  });

  it('signs in through the proxy with the public host forwarded, every redirect on the public origin', async () => {
    expectOnlyOurs(proxied, await signInWith(proxied, { 'x-forwarded-host': publicHost(), 'x-forwarded-for': '192.0.2.9' }));
  });
});
