// A client on the test sandbox with short back-offs, logging at trace into a capture.
import { type ApiClient, type ApiClientDeps, type ClientOptionsInput, createApiClient } from '../../src/api/index.js';
import type { LogCapture } from './logs.js';
import type { KeyPair, TestSandbox } from './sandbox.js';

export const FAST: ClientOptionsInput = {
  backoffBaseMs: 5,
  backoffMaxMs: 40,
  retryBudgetMs: 10_000,
  signInFailureCooldownMs: 20_000,
};

export function makeClient(
  sb: TestSandbox,
  key: KeyPair,
  logs: LogCapture,
  options: ClientOptionsInput = {},
  deps: Omit<ApiClientDeps, 'logger' | 'options'> = {},
): ApiClient {
  return createApiClient(
    { baseUrl: sb.baseUrl, keyId: key.key_id, secret: key.secret },
    { ...deps, logger: logs.logger, options: { ...FAST, ...options } },
  );
}
