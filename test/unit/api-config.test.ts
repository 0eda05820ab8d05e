// loadServiceConfig: a frozen config from the environment, or one line naming the setting and the fix.
import { describe, expect, it } from 'vitest';
import { ConfigError, hasServiceKey, loadServiceConfig } from '../../src/cli/service-env.js';

const KEY = 'svck_live_abcdefghijklmnopqrstuvwx';
const SECRET = 'svc_live_0123456789abcdefghij0123456789abcdefghij';
const TEST_KEY = 'svck_test_abcdefghijklmnopqrstuvwx';
const TEST_SECRET = 'svc_test_0123456789abcdefghij0123456789abcdefghij';
const GOOD = { SVC_BASE_URL: 'https://invoicing.example.com/', SVC_KEY_ID: KEY, SVC_SECRET: SECRET };

function refusal(env: Record<string, string | undefined>): ConfigError {
  try {
    loadServiceConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.message).not.toMatch(/\n/);
    expect(e.exitCode).toBe(2);
    for (const v of [SECRET, TEST_SECRET]) expect(e.message).not.toContain(v);
    return e;
  }
  throw new Error('expected a ConfigError');
}

describe('loadServiceConfig', () => {
  it('reads a good environment into a frozen config', () => {
    const config = loadServiceConfig({ ...GOOD, SVC_POLL_SECONDS: '120', SVC_WEBHOOK_SECRET: 'whsec_abcdefgh12345678' });
    expect(config).toMatchObject({ baseUrl: 'https://invoicing.example.com', keyId: KEY, mode: 'live', pollSeconds: 120 });
    expect(config.secret).toBe(SECRET);
    expect(config.webhookSecret).toBe('whsec_abcdefgh12345678');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('polls every 60 s by default; 0 turns polling off; short intervals are allowed', () => {
    expect(loadServiceConfig(GOOD).pollSeconds).toBe(60);
    expect(loadServiceConfig({ ...GOOD, SVC_POLL_SECONDS: '0' }).pollSeconds).toBe(0);
    expect(loadServiceConfig({ ...GOOD, SVC_POLL_SECONDS: ' 1 ' }).pollSeconds).toBe(1);
    expect(loadServiceConfig({ ...GOOD, SVC_WEBHOOK_SECRET: '  whsec_abcdefgh12345678 ' }).webhookSecret).toBe('whsec_abcdefgh12345678');
    expect(loadServiceConfig({ ...GOOD, SVC_WEBHOOK_SECRET: '  ' }).webhookSecret).toBeNull();
  });

  it('keeps the secrets out of JSON and enumeration', () => {
    const config = loadServiceConfig({ ...GOOD, SVC_WEBHOOK_SECRET: 'whsec_abcdefgh12345678' });
    const text = JSON.stringify(config);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('whsec_');
    expect(Object.keys(config)).not.toContain('secret');
  });

  it('defaults the poll interval and the webhook secret', () => {
    const config = loadServiceConfig(GOOD);
    expect(config.pollSeconds).toBe(60);
    expect(config.webhookSecret).toBeNull();
  });

  it('keeps a path under the base URL and trims blanks', () => {
    const config = loadServiceConfig({ ...GOOD, SVC_BASE_URL: ' https://example.com/svc/ ', SVC_KEY_ID: ` ${KEY}\n` });
    expect(config.baseUrl).toBe('https://example.com/svc');
    expect(config.keyId).toBe(KEY);
  });

  it('allows plain http only on loopback hosts', () => {
    for (const host of ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787', '127.5.6.7']) {
      expect(loadServiceConfig({ ...GOOD, SVC_BASE_URL: `http://${host}` }).baseUrl).toBe(`http://${host}`);
    }
    for (const host of ['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com']) {
      const e = refusal({ ...GOOD, SVC_BASE_URL: `http://${host}` });
      expect(e.setting).toBe('SVC_BASE_URL');
      expect(e.message).toMatch(/https:\/\//);
    }
  });

  it('names each missing setting and says how to fix it', () => {
    expect(refusal({ ...GOOD, SVC_BASE_URL: undefined }).message).toMatch(/^SVC_BASE_URL is not set: set it to/);
    expect(refusal({ ...GOOD, SVC_KEY_ID: '' }).message).toMatch(/^SVC_KEY_ID is not set: .*svck_live_/);
    expect(refusal({ ...GOOD, SVC_SECRET: '   ' }).message).toMatch(/^SVC_SECRET is not set: .*svc_live_/);
  });

  it('refuses malformed settings', () => {
    expect(refusal({ ...GOOD, SVC_BASE_URL: 'not a url' }).setting).toBe('SVC_BASE_URL');
    expect(refusal({ ...GOOD, SVC_BASE_URL: 'https://user:pw@example.com' }).message).toMatch(/user name or password/);
    expect(refusal({ ...GOOD, SVC_BASE_URL: 'ftp://example.com' }).setting).toBe('SVC_BASE_URL');
    expect(refusal({ ...GOOD, SVC_KEY_ID: 'abc' }).message).toMatch(/^SVC_KEY_ID is malformed/);
    expect(refusal({ ...GOOD, SVC_SECRET: 'hunter2' }).message).toMatch(/^SVC_SECRET is malformed/);
    expect(refusal({ ...GOOD, SVC_SECRET: 'svcat_0123456789' }).message).toMatch(/session token/);
    expect(refusal({ ...GOOD, SVC_POLL_SECONDS: '86401' }).setting).toBe('SVC_POLL_SECONDS');
    expect(refusal({ ...GOOD, SVC_POLL_SECONDS: '-1' }).setting).toBe('SVC_POLL_SECONDS');
    expect(refusal({ ...GOOD, SVC_POLL_SECONDS: '1.5' }).message).toMatch(/0 to turn polling off/);
    expect(refusal({ ...GOOD, SVC_WEBHOOK_SECRET: 'svc_live_abcdefgh12345678' }).message).toMatch(/^SVC_WEBHOOK_SECRET must be .*whsec_/);
    expect(refusal({ ...GOOD, SVC_POLL_SECONDS: 'often' }).setting).toBe('SVC_POLL_SECONDS');
    expect(refusal({ ...GOOD, SVC_WEBHOOK_SECRET: 'has space in it' }).setting).toBe('SVC_WEBHOOK_SECRET');
  });

  it('spots a key ID and secret given the wrong way round', () => {
    const e = refusal({ ...GOOD, SVC_KEY_ID: SECRET, SVC_SECRET: KEY });
    expect(e.message).toMatch(/swap/);
  });

  it('refuses a key ID and secret of different modes', () => {
    const e = refusal({ ...GOOD, SVC_KEY_ID: TEST_KEY, SVC_SECRET: SECRET });
    expect(e.setting).toBe('SVC_SECRET');
    expect(e.message).toMatch(/test key .* live secret/);
    expect(loadServiceConfig({ ...GOOD, SVC_KEY_ID: TEST_KEY, SVC_SECRET: TEST_SECRET }).mode).toBe('test');
  });

  it('tells whether the environment names a key at all', () => {
    expect(hasServiceKey({})).toBe(false);
    expect(hasServiceKey({ SVC_KEY_ID: ' ' })).toBe(false);
    expect(hasServiceKey({ SVC_SECRET: SECRET })).toBe(true);
  });
});
