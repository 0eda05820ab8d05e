// An authorization code and a refresh token are each good for one use: eight token requests with the same
// one, sent at once on connections opened beforehand, give exactly one set of tokens; the others are
// refused (invalid_grant) and the reuse ends the grant, so the tokens that one got stop working too, as
// when the same code or refresh token comes back later. Repeated, since a race may go either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { codeFor, codeForm, mcpStatus, refreshForm, type TokenAnswer, tokenRequest, tokenRequestsAtOnce } from './support/pkce-flow.js';

const AT_ONCE = 8;
const ROUNDS = 3;

let sb: TestSandbox;
let server: HostedServer;

beforeAll(async () => {
  sb = await startTestSandbox();
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('hosted_single_use'), vaultKey: newVaultKey() });
});

afterAll(async () => {
  await server?.close();
  await sb?.close();
});

const signer = () => ({ keyId: sb.keys.live.key_id, secret: sb.keys.live.secret });

/** Exactly one answer is a token set; every other is invalid_grant. The token set. */
function onlyOneGranted(answers: TokenAnswer[]): Record<string, any> {
  const granted = answers.filter((a) => a.status === 200);
  expect(
    granted.length,
    `answers: ${answers.map((a) => `${a.status} ${a.body.error ?? ''} ${a.body.error_description ?? ''}`).join('; ')}`,
  ).toBe(1);
  for (const refused of answers.filter((a) => a.status !== 200)) {
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  }
  return (granted[0] as TokenAnswer).body;
}

describe('single use', () => {
  it(`a code sent ${AT_ONCE} times at once gives one token set, and the reuse ends the grant (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const held = await codeFor(server, signer());
      const tokens = onlyOneGranted(await tokenRequestsAtOnce(server.origin, codeForm(held, server), AT_ONCE));
      expect(await mcpStatus(server.url, tokens.access_token)).toBe(401);
      const renewed = await tokenRequest(server.origin, refreshForm(held.clientId, tokens.refresh_token, server));
      expect(renewed.body.error).toBe('invalid_grant');
    }
  });

  it(`a refresh token sent ${AT_ONCE} times at once gives one token set, and the reuse ends the grant (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const held = await codeFor(server, signer());
      const first = await tokenRequest(server.origin, codeForm(held, server));
      expect(first.status).toBe(200);
      expect(await mcpStatus(server.url, first.body.access_token)).not.toBe(401);
      const answers = await tokenRequestsAtOnce(server.origin, refreshForm(held.clientId, first.body.refresh_token, server), AT_ONCE);
      const tokens = onlyOneGranted(answers);
      expect(await mcpStatus(server.url, tokens.access_token)).toBe(401);
      expect(await mcpStatus(server.url, first.body.access_token)).toBe(401);
      const renewed = await tokenRequest(server.origin, refreshForm(held.clientId, tokens.refresh_token, server));
      expect(renewed.body.error).toBe('invalid_grant');
    }
  });

  it('a code traded once works; traded again later it is refused and the tokens it gave stop working', async () => {
    const held = await codeFor(server, signer());
    const first = await tokenRequest(server.origin, codeForm(held, server));
    expect(first.status).toBe(200);
    expect(await mcpStatus(server.url, first.body.access_token)).not.toBe(401);
    const again = await tokenRequest(server.origin, codeForm(held, server));
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(await mcpStatus(server.url, first.body.access_token)).toBe(401);
  });
});
