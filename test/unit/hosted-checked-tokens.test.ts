// The resource server's memory of tokens checked lately (src/hosted/oauth/checked-tokens.ts): kept a moment
// (an injected clock), never past the token's own expiry, and dropped at once when its grant or the token
// itself is revoked.
import type { AuthInfo } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { CheckedTokens } from '../../src/hosted/oauth/checked-tokens.js';

const auth = (grantId: string, expiresAt = 10_000): AuthInfo => ({
  token: `t-${grantId}`,
  clientId: 'c',
  scopes: [],
  expiresAt,
  extra: { grantId },
});

describe('checked tokens', () => {
  it('keeps a checked token for the moment, and never past its own expiry', () => {
    let now = 1_000_000;
    const checked = new CheckedTokens(2_000, () => now);
    checked.keep('a', auth('g1', 1_001));
    expect(checked.get('a')?.extra?.grantId).toBe('g1');
    now += 1_500;
    expect(checked.get('a')).toBeUndefined();
    checked.keep('b', auth('g2'));
    now += 1_999;
    expect(checked.get('b')).toBeDefined();
    now += 1;
    expect(checked.get('b')).toBeUndefined();
    expect(checked.get('never')).toBeUndefined();
  });

  it('forgets a revoked token, and every token of a revoked grant, at once', () => {
    const checked = new CheckedTokens(60_000, () => 0);
    checked.keep('a1', auth('g1'));
    checked.keep('a2', auth('g1'));
    checked.keep('b1', auth('g2'));
    checked.forgetGrants(['g1']);
    expect([checked.get('a1'), checked.get('a2')]).toEqual([undefined, undefined]);
    expect(checked.get('b1')).toBeDefined();
    checked.forgetToken('b1');
    expect(checked.get('b1')).toBeUndefined();
  });
});
