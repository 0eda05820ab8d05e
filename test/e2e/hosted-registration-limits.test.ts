// Dynamic registration is open to anyone, so what it stores is bounded: a redirect URI over plain http://
// only to this machine's loopback (an http:// page elsewhere is a phishing target for codes and errors), at
// most 10 redirect URIs of at most 2,000 characters each, a client name of at most 200 characters, and at
// most 16 KB of metadata in all. A client as MCP clients register it (a loopback callback) is still taken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { publicClient, register } from './support/pkce-flow.js';

let sb: TestSandbox;
let server: HostedServer;

beforeAll(async () => {
  sb = await startTestSandbox();
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('hosted_registration'), vaultKey: newVaultKey() });
});

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

const refusal = async (metadata: Record<string, unknown>) => {
  const answer = await register(server.origin, metadata);
  return { status: answer.status, error: answer.body.error as string, says: String(answer.body.error_description ?? '') };
};

describe('dynamic registration is bounded', () => {
  it('takes loopback callbacks over http:// and https:// anywhere', async () => {
    for (const uri of [
      'http://127.0.0.1:33418/callback',
      'http://localhost:6274/oauth/callback',
      'http://[::1]:9/cb',
      'https://assistant.example/cb',
    ])
      expect((await register(server.origin, publicClient(uri))).status, uri).toBe(201);
  });

  it('refuses a plain http:// redirect URI that is not loopback, naming it', async () => {
    const got = await refusal(publicClient('http://phish.example/login'));
    expect(got.status).toBe(400);
    expect(got.error).toBe('invalid_redirect_uri');
    expect(got.says).toMatch(/http:\/\/phish\.example\/login.*https:\/\/|loopback/);
  });

  it('refuses more than 10 redirect URIs, one longer than 2,000 characters, a name over 200 and metadata over 16 KB', async () => {
    const many = {
      ...publicClient('https://a.example/cb'),
      redirect_uris: Array.from({ length: 500 }, (_, i) => `https://a.example/cb${i}`),
    };
    const long = publicClient(`https://a.example/${'x'.repeat(2_100)}`);
    const named = publicClient('https://a.example/cb', 'n'.repeat(50_000));
    const big = { ...publicClient('https://a.example/cb'), contacts: Array.from({ length: 1_000 }, (_, i) => `person${i}@a.example`) };
    const answers = await Promise.all([many, long, named, big].map(refusal));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    expect(answers[0]?.says).toMatch(/at most 10 redirect URIs/);
    expect(answers[1]?.says).toMatch(/2000 characters/);
    expect(answers[2]?.says).toMatch(/client_name.*200 characters/);
    expect(answers[3]?.says).toMatch(/16 KB/);
  });
});
