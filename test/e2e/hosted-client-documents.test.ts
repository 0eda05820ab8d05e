// A client ID metadata document is fetched from public addresses only. An authorization request naming a
// client by an https:// URL on this machine (by address in any spelling the URL parser takes, or by a name
// that resolves here) opens no connection there: listeners on 127.0.0.1 and [::1] count them. The answer is
// our page, the same and as quick whatever listens at the target (an open port that says nothing, one that
// answers at once, a closed one), so it tells nothing about what is there. With --client-id-documents off
// such a client is refused at once and the server's metadata no longer offers documents.
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { authorizationRequest } from './support/pkce-flow.js';

let sb: TestSandbox;
let server: HostedServer;
let documentsOff: HostedServer;
/** Listeners that accept and say nothing (a TLS handshake to them waits), one per loopback address. */
const silent: Server[] = [];
/** A listener that answers every connection at once and hangs up. */
let talker: Server;
let port = 0;
let talkerPort = 0;
let closedPort = 0;
let connections = 0;

async function listen(server: Server, host: string, at = 0): Promise<number> {
  server.listen(at, host);
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

beforeAll(async () => {
  const holdSilently = () =>
    createServer((socket) => {
      connections += 1;
      socket.on('error', () => {});
      setTimeout(() => socket.destroy(), 10_000).unref();
    });
  silent.push(holdSilently(), holdSilently());
  port = await listen(silent[0] as Server, '127.0.0.1');
  await listen(silent[1] as Server, '::1', port);
  talker = createServer((socket) => {
    connections += 1;
    socket.on('error', () => {});
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
  });
  talkerPort = await listen(talker, '127.0.0.1');
  const closed = createServer();
  closedPort = await listen(closed, '127.0.0.1');
  await new Promise((resolve) => closed.close(resolve));
  sb = await startTestSandbox();
  const database = await postgresDatabase('hosted_client_documents');
  [server, documentsOff] = await Promise.all([
    startHostedServer({ sandbox: sb, database, vaultKey: newVaultKey() }),
    startHostedServer({
      sandbox: sb,
      database: await postgresDatabase('hosted_client_documents_off'),
      vaultKey: newVaultKey(),
      args: ['--client-id-documents', 'off'],
    }),
  ]);
});

afterAll(async () => {
  await server?.close();
  await documentsOff?.close();
  await sb?.close();
  for (const listener of [...silent, talker]) listener?.close();
});

/** The authorization request for a client named by `clientId`, answered without following redirects, and how long it took. */
async function authorize(deployment: HostedServer, clientId: string) {
  const { url } = authorizationRequest(deployment, clientId, 'https://assistant.example/callback');
  const started = performance.now();
  const res = await fetch(url, { redirect: 'manual' });
  const page = await res.text();
  return { status: res.status, location: res.headers.get('location'), page, ms: performance.now() - started };
}

const REFUSED = 'could not be fetched from a public address';

describe('client ID metadata documents', () => {
  it.each([
    '127.0.0.1',
    'localhost',
    '[::1]',
    '127.1',
    '2130706433',
    '0x7f.0.0.1',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:7f00:1]',
  ])('one on this machine (%s) is refused on our page and never connected to', async (host) => {
    const answer = await authorize(server, `https://${host}:${port}/client.json`);
    expect(connections).toBe(0);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.page).toContain('invalid_client');
    expect(answer.page).toContain(REFUSED);
  });

  it('reads the same, as quickly, whether the port is open and silent, answers at once, or is closed', async () => {
    const answers = [];
    for (const target of [port, talkerPort, closedPort]) answers.push(await authorize(server, `https://127.0.0.1:${target}/client.json`));
    expect(connections).toBe(0);
    expect(new Set(answers.map((a) => `${a.status} ${a.page}`)).size).toBe(1);
    // Refused before any connection: a silent port cannot hold the answer (the library's own limit is 2.5 s).
    for (const answer of answers) expect(answer.ms).toBeLessThan(1_500);
  });

  it('are offered in the metadata while on', async () => {
    const discovery = (await (await fetch(`${server.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(discovery.client_id_metadata_document_supported).toBe(true);
  });

  it('with --client-id-documents off are neither offered nor fetched: such a client is refused at once', async () => {
    const discovery = (await (await fetch(`${documentsOff.origin}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(discovery.client_id_metadata_document_supported).toBeUndefined();
    const answer = await authorize(documentsOff, `https://localhost:${port}/client.json`);
    expect(connections).toBe(0);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.page).toContain('invalid_client');
    expect(answer.page).toContain('does not take clients named by the address of a metadata document');
  });
});
