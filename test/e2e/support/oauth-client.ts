// An MCP client that signs in as a web assistant does: the v2 SDK's OAuth client provider (in memory), its
// authorization URL opened in a real browser page where the person fills our sign-in page, the browser's
// return to the client's redirect URL caught in the page, and the code handed back to the transport.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';

export class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = '';
  #discovery: OAuthDiscoveryState | undefined;

  constructor(
    readonly redirect: string,
    readonly name: string,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.#client = info;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  // Kept with the code verifier, so the client can check the code came back from the server it went to.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }
}

export interface Signer {
  keyId: string;
  secret: string;
}

/**
 * The client's redirect URL: a listener on loopback that keeps where the browser was sent back to (the
 * route of a page does not see a redirect's later hops, so a real listener stands in for the client).
 */
export interface Callback {
  url: string;
  /** The next return to it. */
  next(): Promise<URL>;
  close(): Promise<void>;
}

export async function startCallback(): Promise<Callback> {
  // Returns wait here until asked for; anything else the browser asks (its favicon) is not one.
  const arrived: URL[] = [];
  const waiting: ((url: URL) => void)[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    const waiter = waiting.shift();
    if (waiter) waiter(url);
    else arrived.push(url);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this page.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const first = arrived.shift();
      return first ? Promise.resolve(first) : new Promise<URL>((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface OAuthClient {
  provider: MemoryOAuthProvider;
  transport: StreamableHTTPClientTransport;
  client: Client;
}

/** `fetch`: what makes its requests (the global fetch when not given). */
export function oauthClient(url: string, provider: MemoryOAuthProvider, fetch?: typeof globalThis.fetch): OAuthClient {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, ...(fetch ? { fetch } : {}) });
  return { provider, transport, client: new Client({ name: provider.name, version: '1.0.0' }) };
}

/** Starts the flow: the first connection is refused and the provider is given the authorization URL. */
export async function startFlow(url: string, provider: MemoryOAuthProvider, fetch?: typeof globalThis.fetch): Promise<OAuthClient> {
  const first = oauthClient(url, provider, fetch);
  const refused = await first.client.connect(first.transport).then(
    () => null,
    (err: unknown) => err,
  );
  if (!(refused instanceof UnauthorizedError)) throw new Error(`expected the first connection to need sign-in, got ${String(refused)}`);
  if (!provider.authorizationUrl) throw new Error('the client was not sent to sign in');
  return first;
}

/** The sign-in page's first step: Key ID and Secret, then Continue. */
export async function fillKey(page: Page, signer: Signer): Promise<void> {
  await page.getByLabel('Key ID').fill(signer.keyId);
  await page.getByLabel('Secret').fill(signer.secret);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The whole sign-in for a key, Allow at the end; the client connected with its token. */
export async function signInThrough(
  page: Page,
  url: string,
  provider: MemoryOAuthProvider,
  callback: Callback,
  signer: Signer,
): Promise<Client> {
  const first = await startFlow(url, provider);
  await page.goto(String(provider.authorizationUrl));
  await fillKey(page, signer);
  const returned = callback.next();
  await page.getByRole('button', { name: 'Allow' }).click();
  const back = await returned;
  await first.transport.finishAuth(back.searchParams);
  const connected = oauthClient(url, provider);
  await connected.client.connect(connected.transport);
  return connected.client;
}
