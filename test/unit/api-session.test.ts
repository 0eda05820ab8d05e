// The session manager with a scripted sign-in: single flight, renewal, cool-down after a refusal, and a
// per-minute allowance that counts every sign-in request the service answered, retries included, and never
// one that got no answer.
import { describe, expect, it } from 'vitest';
import { RateLimited, Unauthorized } from '../../src/api/errors.js';
import type { SessionGrant } from '../../src/api/schemas.js';
import { SessionManager, type SessionOptions } from '../../src/api/session.js';

const OPTIONS: SessionOptions = { renewMarginMs: 60_000, maxSignInsPerMinute: 4, failureCooldownMs: 20_000, maxWaitMs: 1000 };

function harness(
  script: Array<'ok' | '401' | 'fault-then-ok' | 'drops-then-ok'>,
  options: Partial<SessionOptions> = {},
  allowance?: () => Promise<void>,
) {
  let clock = 1_000_000;
  let n = 0;
  const requests: number[] = [];
  const manager = new SessionManager(
    { ...OPTIONS, ...options },
    {
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
      signOut: async () => undefined,
      ...(allowance ? { allowance } : {}),
      signIn: async (turns): Promise<SessionGrant> => {
        const step = script[Math.min(n, script.length - 1)];
        n++;
        if (step === 'drops-then-ok') {
          for (let i = 0; i < 5; i++) await turns.before(); // five attempts with no answer, then the one answered below
        }
        await turns.before();
        requests.push(clock);
        await new Promise((r) => setTimeout(r, 5));
        turns.answered();
        if (step === '401') throw new Unauthorized('Sign-in was refused (401).');
        if (step === 'fault-then-ok') {
          await turns.before(); // a retry after a 500
          requests.push(clock);
          turns.answered();
        }
        return { access_token: `svcat_token${n}`, expires_in: 3600 };
      },
    },
  );
  return { manager, requests, advance: (ms: number) => (clock += ms) };
}

describe('SessionManager', () => {
  it('waits for a shared allowance before each sign-in request, and sends none when it refuses', async () => {
    const taken: number[] = [];
    let open = true;
    const h = harness(['fault-then-ok'], {}, async () => {
      if (!open) throw new RateLimited('the deployment has no sign-in left this minute', 42);
      taken.push(taken.length);
    });
    await h.manager.token();
    // The first request and its retry each took one.
    expect(taken).toHaveLength(2);
    expect(h.requests).toHaveLength(2);
    open = false;
    h.advance(3_600_000);
    await expect(h.manager.token()).rejects.toMatchObject({ retryAfter: 42 });
    expect(h.requests).toHaveLength(2);
  });

  it('leaves no rejection unheard when every caller gave up before a refused sign-in answered', async () => {
    const h = harness(['401']);
    const unheard: unknown[] = [];
    const listener = (reason: unknown): void => {
      unheard.push(reason);
    };
    process.on('unhandledRejection', listener);
    try {
      const gone = new AbortController();
      gone.abort(new Error('the client left'));
      await expect(h.manager.token(gone.signal)).rejects.toThrow('the client left');
      await new Promise((r) => setTimeout(r, 30));
      expect(unheard).toEqual([]);
      await expect(h.manager.token()).rejects.toBeInstanceOf(Unauthorized);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('signs in once for many concurrent callers', async () => {
    const h = harness(['ok']);
    const tokens = await Promise.all(Array.from({ length: 20 }, () => h.manager.token()));
    expect(new Set(tokens)).toEqual(new Set(['svcat_token1']));
    expect(h.requests).toHaveLength(1);
  });

  it('renews inside the margin before expiry, not before', async () => {
    const h = harness(['ok']);
    await h.manager.token();
    h.advance(3_500_000);
    expect(await h.manager.token()).toBe('svcat_token1');
    h.advance(50_000);
    expect(await h.manager.token()).toBe('svcat_token2');
  });

  it('renews once after a 401, however many calls saw it', async () => {
    const h = harness(['ok']);
    const old = await h.manager.token();
    const renewed = await Promise.all(Array.from({ length: 10 }, () => h.manager.renewAfter(old)));
    expect(new Set(renewed)).toEqual(new Set(['svcat_token2']));
    expect(await h.manager.renewAfter(old)).toBe('svcat_token2');
    expect(h.requests).toHaveLength(2);
  });

  it('remembers a refused sign-in for the cool-down', async () => {
    const h = harness(['401', 'ok']);
    await expect(h.manager.token()).rejects.toBeInstanceOf(Unauthorized);
    await expect(h.manager.token()).rejects.toBeInstanceOf(Unauthorized);
    expect(h.requests).toHaveLength(1);
    h.advance(20_001);
    expect(await h.manager.token()).toBe('svcat_token2');
  });

  it('counts retries toward the per-minute allowance and refuses beyond it', async () => {
    const h = harness(['fault-then-ok'], { renewMarginMs: 3_600_000 }); // every call signs in again
    await h.manager.token();
    await h.manager.token();
    expect(h.requests).toHaveLength(4);
    const err = await h.manager.token().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfter).toBeGreaterThanOrEqual(59);
    expect(h.requests).toHaveLength(4);
  });

  it('does not count attempts that got no answer', async () => {
    const h = harness(['drops-then-ok'], { renewMarginMs: 3_600_000 }); // every call signs in again
    for (let i = 0; i < 4; i++) expect(await h.manager.token()).toBe(`svcat_token${i + 1}`);
    expect(h.manager.signIns).toBe(4);
    await expect(h.manager.token()).rejects.toBeInstanceOf(RateLimited);
  });

  it('waits for the allowance when the wait is within bounds', async () => {
    const h = harness(['ok'], { renewMarginMs: 3_600_000, maxWaitMs: 120_000 });
    for (let i = 0; i < 6; i++) await h.manager.token();
    expect(h.requests).toHaveLength(6);
    expect((h.requests[4] as number) - (h.requests[0] as number)).toBeGreaterThanOrEqual(60_000);
  });
});
