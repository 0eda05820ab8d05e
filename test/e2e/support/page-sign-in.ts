// Signing in through the hosted sign-in page as people and as an attacker would, over plain HTTP: a new
// business of the sandbox, a person's whole sign-in ending in a connected MCP client, and wrong secrets
// posted at once, each request carrying `X-Forwarded-For` when it comes "through the proxy".
import type { Client } from '@modelcontextprotocol/client';
import { wrongSecret } from '../../contract/sandbox-http.js';
import type { TestSandbox } from '../../support/sandbox.js';
import { openSignIn } from './form-sign-in.js';
import { MemoryOAuthProvider, oauthClient, type Signer, startFlow } from './oauth-client.js';

export const REDIRECT = 'http://127.0.0.1:9/callback';

/** A business of its own at the sandbox; its live key. */
export async function newBusiness(sb: TestSandbox): Promise<Signer & { businessId: number }> {
  const made = await sb.admin('POST', '/businesses', {});
  sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
  return { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret, businessId: made.body.id };
}

/** `X-Forwarded-For` as a proxy sets it for a client at `address` (none: straight to the server). */
export const forwardedFor = (address: string | undefined): Record<string, string> =>
  address === undefined ? {} : { 'x-forwarded-for': address };

export interface SignedIn {
  client: Client;
  provider: MemoryOAuthProvider;
}

/**
 * A person's sign-in: the client begins at `url` (the deployment's /mcp), the forms go to `via`, Allow; the
 * client connected with its token. Throws with the page's words when the key step does not go on to Allow.
 */
export async function signInPerson(url: string, via: string, signer: Signer, name: string, address?: string): Promise<SignedIn> {
  const provider = new MemoryOAuthProvider(REDIRECT, name);
  const flow = await startFlow(url, provider);
  const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, via, fetch, forwardedFor(address));
  const tried = await forms.tryKey(signer);
  if (!tried.page.includes('name="action" value="allow"'))
    throw new Error(`the key step did not go on (${tried.status}): ${problemOf(tried.page)}`);
  await flow.transport.finishAuth(await forms.allow(tried.page, 'write'));
  const connected = oauthClient(url, provider);
  await connected.client.connect(connected.transport);
  return { client: connected.client, provider };
}

/** The words of the page's alert (what the person is told), or '' when it has none. */
export function problemOf(page: string): string {
  const alert = /<div class="alert" role="alert" id="problem"><h2>([^<]*)<\/h2><p>([^<]*)<\/p>/.exec(page);
  return alert ? `${alert[1]}: ${alert[2]}` : '';
}

export interface Attempt {
  status: number;
  problem: string;
  /** Both fields are marked invalid and described by the alert (a screen reader reads it with them). */
  tiedToFields: boolean;
}

/** What an answer to a key step tells the person, and whether its alert is tied to the fields. */
export function attemptOf(answer: { status: number; page: string }): Attempt {
  const tied = ['key_id', 'secret'].every((id) =>
    new RegExp(`id="${id}"[^>]*aria-invalid="true" aria-describedby="problem"`).test(answer.page),
  );
  return { status: answer.status, problem: problemOf(answer.page), tiedToFields: tied };
}

/**
 * `count` wrong secrets for `signer`'s key ID, all posted at once, on `pages` sign-in pages (each opened for
 * a client registered at `url`), the i-th from `addresses[i % n]` through the proxy. What each was answered.
 */
export async function wrongSecretsAtOnce(
  url: string,
  via: string,
  signer: Signer,
  count: number,
  options: { pages: number; addresses: (string | undefined)[] },
): Promise<Attempt[]> {
  const provider = new MemoryOAuthProvider(REDIRECT, 'Guesser');
  await startFlow(url, provider);
  const address = (i: number) => options.addresses[i % options.addresses.length];
  const pages = await Promise.all(
    Array.from({ length: options.pages }, (_, p) =>
      openSignIn(provider.authorizationUrl as URL, REDIRECT, via, fetch, forwardedFor(address(p))),
    ),
  );
  const wrong = { keyId: signer.keyId, secret: wrongSecret(signer.secret) };
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => (pages[i % pages.length] as (typeof pages)[number]).tryKey(wrong)),
  );
  return answers.map(attemptOf);
}
