// --businesses: a wrong entry is refused at start, naming the entry and its field; a good list is read whole.
import { describe, expect, it } from 'vitest';
import { loadBusinesses } from '../../src/cli/businesses-file.js';
import { ConfigError } from '../../src/cli/service-env.js';

const good = (name: string, n: number) => ({
  name,
  base_url: 'https://invoicing.example.com',
  key_id: `svck_live_k${n}`,
  secret: `svc_live_s${n}`,
});
const refusal = (list: unknown, env: Record<string, string> = {}): string => {
  try {
    loadBusinesses(JSON.stringify(list), env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(2);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('--businesses', () => {
  it('reads every entry, a secret from the environment too', () => {
    const entries = loadBusinesses(
      JSON.stringify([good('Harbourside', 1), { ...good('Tui Dental', 2), secret: undefined, secret_env: 'TUI' }]),
      {
        TUI: 'svc_live_fromenv',
      },
    );
    expect(entries.map((e) => [e.name, e.config.keyId, e.config.secret])).toEqual([
      ['Harbourside', 'svck_live_k1', 'svc_live_s1'],
      ['Tui Dental', 'svck_live_k2', 'svc_live_fromenv'],
    ]);
    // The secret stays out of JSON (and so of logs).
    expect(JSON.stringify(entries)).not.toContain('svc_live_s1');
  });

  it('refuses a wrong entry naming it and its field', () => {
    expect(refusal([good('A', 1), { ...good('B', 2), key_id: 'svc_live_swapped' }])).toMatch(
      /^--businesses: entry 2 \("B"\): field key_id: key_id holds a secret/,
    );
    expect(refusal([good('A', 1), { ...good('B', 2), base_url: 'not a url' }])).toMatch(
      /entry 2 \("B"\): field base_url: base_url is not a URL/,
    );
    expect(refusal([{ ...good('A', 1), secret: undefined, secret_env: 'NOPE' }])).toMatch(
      /entry 1 \("A"\): field secret_env names NOPE, which is not set/,
    );
    expect(refusal([good('A', 1), good('a', 2)])).toMatch(/entry 2 \("a"\): field name is already entry 1's/);
    expect(refusal([{ ...good('A', 1), nickname: 'x' }])).toMatch(/entry 1: unknown field "nickname"/);
    expect(refusal([{ ...good('', 1) }])).toMatch(/entry 1: field name must be/);
    expect(refusal([good('All', 1)])).toMatch(/"all" is kept/);
    expect(refusal([good('Say "hi"', 1)])).toMatch(/field name must be plain text/);
    expect(refusal([{ ...good('A', 1), webhook_secret: 'svc_live_s1' }])).toMatch(
      /entry 1 \("A"\): field webhook_secret: webhook_secret must be the webhook endpoint's signing secret/,
    );
    expect(refusal([])).toMatch(/must hold a JSON array/);
  });
});
