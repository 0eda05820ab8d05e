// No redirect without a verified client and redirect URI (RFC 9700 section 4.11.2): anyone may register a
// web client for any https:// page, so an error in the first authorization request, before a person has been
// through the sign-in page, is shown on our own page (400, in words, no Location) and never sent on to the
// registered redirect URI, which would make the server an open redirector for a phishing page. The registered
// host is never contacted: every answer is read with redirects left unfollowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { authorizationRequest, registerClient } from './support/pkce-flow.js';

const PHISH = 'https://phish.example/login';

let sb: TestSandbox;
let server: HostedServer;
let clientId: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('hosted_no_open_redirect'), vaultKey: newVaultKey() });
  clientId = await registerClient(server.origin, PHISH);
});

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

/** The first authorization request for the phishing client, changed by `extra` (an empty value drops the parameter). */
async function authorize(extra: Record<string, string>) {
  const { url } = authorizationRequest(server, clientId, PHISH, extra);
  for (const [name, value] of Object.entries(extra)) if (value === '') url.searchParams.delete(name);
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), type: res.headers.get('content-type') ?? '', page: await res.text() };
}

describe('an error before a person signed in is shown on our page, never sent to the redirect URI', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['no PKCE', { code_challenge: '', code_challenge_method: '' }, /code_challenge|PKCE/i],
    ['a plain PKCE method', { code_challenge_method: 'plain' }, /code_challenge_method/i],
    ['a resource that is not ours', { resource: 'https://elsewhere.example/mcp' }, /only resource here/],
    ['response_type=token', { response_type: 'token' }, /response_type/i],
    ['prompt=none with no one signed in', { prompt: 'none' }, /login|sign|End-User/i],
  ];
  it.each(cases)('%s: 400, our page in words, no Location', async (_case, extra, says) => {
    const got = await authorize(extra);
    expect(got.location, `sent on to ${got.location}`).toBeNull();
    expect(got.status).toBe(400);
    expect(got.type).toMatch(/text\/html/);
    expect(got.page).toMatch(says);
    expect(got.page).not.toContain('phish.example');
  });

  // Neither is an error: the library leaves an unknown scope out, and state is optional (RFC 6749).
  it.each([
    ['an unknown scope', { scope: 'books.read everything' }],
    ['no state', { state: '' }],
  ])('%s: on to our sign-in page, not to the client', async (_case, extra) => {
    const got = await authorize(extra);
    expect(got.status).toBe(303);
    expect(new URL(String(got.location), server.origin).href).toMatch(new RegExp(`^${server.origin}/oauth/interaction/`));
  });
});
