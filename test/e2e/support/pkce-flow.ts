// The authorization code flow with PKCE as a public client runs it, one request at a time: register, send
// the person to sign in (the sign-in page's forms, posted over plain HTTP), take the code back, and trade it
// (or a refresh token) at the token endpoint, also many times at once on sockets opened beforehand, so that
// the server has every request in hand before it answers any.
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { signInByForms } from './form-sign-in.js';
import type { Signer } from './oauth-client.js';
import { target } from './raw-http.js';

/** The deployment as the flow sees it: the canonical URL of /mcp and its origin (the issuer). */
export interface Deployment {
  url: string;
  origin: string;
}

export interface CodeInHand {
  clientId: string;
  redirect: string;
  verifier: string;
  code: string;
}

export interface TokenAnswer {
  status: number;
  body: Record<string, any>;
}

const json = async (res: Response): Promise<TokenAnswer> => ({ status: res.status, body: (await res.json()) as Record<string, any> });

/** Registers a public client (dynamic registration) for `redirect`; its answer. */
export async function register(origin: string, metadata: Record<string, unknown>, headers: Record<string, string> = {}) {
  return json(
    await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(metadata),
    }),
  );
}

/** A public client's registration for one redirect URI, as MCP clients send it. */
export const publicClient = (redirect: string, name = 'Racing Assistant') => ({
  client_name: name,
  redirect_uris: [redirect],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** Registers a public client for `redirect`; its client ID. */
export async function registerClient(origin: string, redirect: string): Promise<string> {
  const answer = await register(origin, publicClient(redirect));
  if (answer.status !== 201) throw new Error(`registration refused: ${JSON.stringify(answer.body)}`);
  return String(answer.body.client_id);
}

/** The authorization request with PKCE (S256) for `clientId`, and its verifier; `extra` adds or replaces parameters. */
export function authorizationRequest(deployment: Deployment, clientId: string, redirect: string, extra: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${deployment.origin}/oauth/authorize`);
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'books.read offline_access',
    resource: deployment.url,
    state: randomBytes(8).toString('hex'),
    ...extra,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { url, verifier };
}

/** A new client signed in with `signer` (read access) and Allowed: the code it got back, not yet traded. */
export async function codeFor(deployment: Deployment, signer: Signer, redirect = 'http://127.0.0.1:9/callback'): Promise<CodeInHand> {
  const clientId = await registerClient(deployment.origin, redirect);
  const { url, verifier } = authorizationRequest(deployment, clientId, redirect);
  const back = await signInByForms(url, redirect, signer, deployment.origin);
  const code = back.get('code');
  if (!code) throw new Error(`no code came back: ${back.toString()}`);
  return { clientId, redirect, verifier, code };
}

/** The token request's form trading a code. */
export const codeForm = (held: CodeInHand, deployment: Deployment): Record<string, string> => ({
  grant_type: 'authorization_code',
  code: held.code,
  code_verifier: held.verifier,
  redirect_uri: held.redirect,
  client_id: held.clientId,
  resource: deployment.url,
});

/** The token request's form trading a refresh token. */
export const refreshForm = (clientId: string, refreshToken: string, deployment: Deployment): Record<string, string> => ({
  grant_type: 'refresh_token',
  refresh_token: refreshToken,
  client_id: clientId,
  resource: deployment.url,
});

/** One token request. */
export async function tokenRequest(origin: string, fields: Record<string, string>): Promise<TokenAnswer> {
  return json(
    await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

/** An HTTP/1.1 response read whole (the server closes after it): its status and JSON body, chunked or not. */
function parseResponse(raw: Buffer): TokenAnswer {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const head = text.slice(0, end);
  let body = text.slice(end + 4);
  if (/^transfer-encoding:\s*chunked/im.test(head)) {
    let joined = '';
    for (let at = 0; ; ) {
      const eol = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.slice(at, eol), 16);
      if (!size) break;
      joined += body.slice(eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    body = joined;
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(body) as Record<string, any> };
}

const connected = (host: string, port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, host, () => resolve(socket));
    socket.once('error', reject);
  });

/**
 * The same token request `times` times at once: every connection is opened first, then each request is
 * written whole in the same turn of the event loop. The answers in the order sent.
 */
export async function tokenRequestsAtOnce(origin: string, fields: Record<string, string>, times: number): Promise<TokenAnswer[]> {
  const { host, port } = target(origin);
  const sockets = await Promise.all(Array.from({ length: times }, () => connected(host, port)));
  const body = new URLSearchParams(fields).toString();
  const request =
    `POST /oauth/token HTTP/1.1\r\nhost: ${new URL(origin).host}\r\ncontent-type: application/x-www-form-urlencoded\r\n` +
    `accept: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const answers = sockets.map(
    (socket) =>
      new Promise<TokenAnswer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('error', reject);
        socket.once('close', () => resolve(parseResponse(Buffer.concat(chunks))));
      }),
  );
  for (const socket of sockets) socket.write(request);
  return Promise.all(answers);
}

/** A /mcp request with `accessToken`: its status (401 once the token no longer works). */
export async function mcpStatus(url: string, accessToken: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await res.body?.cancel();
  return res.status;
}
