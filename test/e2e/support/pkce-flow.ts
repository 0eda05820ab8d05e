// The authorization code flow with PKCE as a public client runs it, one request at a time: register, send
// the person to sign in (the sign-in page's forms, posted over plain HTTP), take the code back, and trade it
// (or a refresh token) at the token endpoint, also many times at once (posts-at-once.ts).
import { createHash, randomBytes } from 'node:crypto';
import { signInByForms } from './form-sign-in.js';
import type { Signer } from './oauth-client.js';
import { type Answer, type Post, postsAtOnce } from './posts-at-once.js';

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

/** A token request with `fields`, to post by hand (postsAtOnce). */
export const tokenPost = (origin: string, fields: Record<string, string>): Post => ({
  url: `${origin}/oauth/token`,
  headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
  body: new URLSearchParams(fields).toString(),
});

/** A token endpoint's answer posted by hand. */
export const tokenAnswer = (answer: Answer): TokenAnswer => ({
  status: answer.status,
  body: JSON.parse(answer.body) as Record<string, any>,
});

/** The same token request `times` times at once (postsAtOnce); the answers in the order sent. */
export async function tokenRequestsAtOnce(origin: string, fields: Record<string, string>, times: number): Promise<TokenAnswer[]> {
  return (await postsAtOnce(Array.from({ length: times }, () => tokenPost(origin, fields)))).map(tokenAnswer);
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
