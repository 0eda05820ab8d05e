// One grant's refresh token presented at once on two processes of a deployment (each a Node process of its
// own on one Postgres, the posts alternating between them on connections opened beforehand): exactly one
// presentation gets tokens, every other is refused with invalid_grant, and the reuse ends the grant on both
// processes (the winner's access token and refresh token stop working too). Repeated, since a race may go
// either way.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, spawnHostedProcess } from './support/hosted.js';
import { codeFor, codeForm, mcpStatus, refreshForm, tokenAnswer, tokenPost, tokenRequest } from './support/pkce-flow.js';
import { postsAtOnce } from './support/posts-at-once.js';

const AT_ONCE = 8;
const ROUNDS = 3;

let sb: TestSandbox;
let first: HostedServer;
/** The deployment's second process: the same database and vault key, public at the first one's URL. */
let second: HostedServer;

beforeAll(async () => {
  sb = await startTestSandbox();
  const database = await postgresDatabase('hosted_refresh_race');
  const vaultKey = newVaultKey();
  first = await spawnHostedProcess({ sandbox: sb, database, vaultKey });
  second = await spawnHostedProcess({ sandbox: sb, database, vaultKey, publicUrl: first.url });
}, 60_000);

afterAll(async () => {
  await second?.close();
  await first?.close();
  await sb?.close();
});

const originOf = (server: HostedServer): string => new URL(server.direct).origin;

it(`a refresh token sent ${AT_ONCE} times at once, half to each process, gives one token set; the reuse ends the grant on both (${ROUNDS} rounds)`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const held = await codeFor(first, { keyId: sb.keys.live.key_id, secret: sb.keys.live.secret });
    const tokens = await tokenRequest(first.origin, codeForm(held, first));
    expect(tokens.status).toBe(200);
    const form = refreshForm(held.clientId, tokens.body.refresh_token, first);
    const posts = Array.from({ length: AT_ONCE }, (_, i) => tokenPost(originOf(i % 2 === 0 ? first : second), form));
    const answers = (await postsAtOnce(posts)).map(tokenAnswer);
    const seen = answers.map((a) => `${a.status} ${a.body.error ?? ''}`);
    const won = answers.filter((a) => a.status === 200);
    expect(won, seen.join('; ')).toHaveLength(1);
    for (const lost of answers.filter((a) => a.status !== 200)) expect(`${lost.status} ${lost.body.error}`).toBe('400 invalid_grant');
    const winner = won[0]?.body as Record<string, string>;
    for (const server of [first, second]) {
      expect(await mcpStatus(server.direct, winner.access_token as string)).toBe(401);
      expect(await mcpStatus(server.direct, tokens.body.access_token)).toBe(401);
    }
    const again = await tokenRequest(originOf(second), refreshForm(held.clientId, winner.refresh_token as string, first));
    expect(again.body.error).toBe('invalid_grant');
  }
}, 60_000);
