// SVC_POLL_MS, the tests' finer poll interval (left out of the usage and the README): read as a fraction of a
// second in place of SVC_POLL_SECONDS, and refused, naming itself, when it is not a whole number of ms.
import { expect, it } from 'vitest';
import { ConfigError, loadServiceConfig } from '../../src/cli/service-env.js';

const GOOD = {
  SVC_BASE_URL: 'https://invoicing.example.com/',
  SVC_KEY_ID: 'svck_live_abcdefghijklmnopqrstuvwx',
  SVC_SECRET: 'svc_live_0123456789abcdefghij0123456789abcdefghij',
};

it('stands in for SVC_POLL_SECONDS as a fraction of a second', () => {
  expect(loadServiceConfig({ ...GOOD, SVC_POLL_MS: '200' }).pollSeconds).toBe(0.2);
  expect(loadServiceConfig({ ...GOOD, SVC_POLL_MS: ' 200 ', SVC_POLL_SECONDS: '60' }).pollSeconds).toBe(0.2);
  expect(loadServiceConfig({ ...GOOD, SVC_POLL_SECONDS: '60' }).pollSeconds).toBe(60);
});

it('is refused, by its name, when not a whole number of ms from 10', () => {
  for (const bad of ['5', '0.5', 'fast', '-200']) {
    expect(() => loadServiceConfig({ ...GOOD, SVC_POLL_MS: bad })).toThrow(ConfigError);
    expect(() => loadServiceConfig({ ...GOOD, SVC_POLL_MS: bad })).toThrow(/^SVC_POLL_MS must be a whole number of milliseconds/);
  }
});
