// The service connection the server and `check` use: the keys from the environment, or, with none, the
// embedded sandbox in test mode (loaded only then).
import type { ApiClient, ApiClientDeps, ClientOptionsInput } from '../api/client.js';
import type { Logger } from '../log/logger.js';
import { lazyApiClient } from './lazy-api.js';
import { hasServiceKey, loadServiceConfig, type ServiceConfig, type ServiceEnv } from './service-env.js';

export interface Connection {
  api: ApiClient;
  /** The service settings read from the environment; null on the embedded sandbox. */
  config: ServiceConfig | null;
  /** Set when running on the embedded sandbox. */
  sandbox: { baseUrl: string; close(): Promise<void> } | null;
  close(): Promise<void>;
}

/** The connection of one key whose settings are checked already (SVC_*, or an entry of --businesses). */
export function connectTo(
  config: ServiceConfig,
  loadLogger: () => Promise<Logger>,
  options: ClientOptionsInput = {},
  heard: Pick<ApiClientDeps, 'onKeyAccepted'> = {},
): Connection {
  const api = lazyApiClient({ baseUrl: config.baseUrl, keyId: config.keyId, secret: config.secret }, loadLogger, { options, ...heard });
  return { api, config, sandbox: null, close: () => api.close() };
}

export async function connect(
  env: ServiceEnv,
  loadLogger: () => Promise<Logger>,
  options: ClientOptionsInput = {},
  heard: Pick<ApiClientDeps, 'onKeyAccepted'> = {},
): Promise<Connection> {
  if (hasServiceKey(env) || env.SVC_BASE_URL) return connectTo(loadServiceConfig(env), loadLogger, options, heard);
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0 });
  const api = lazyApiClient({ baseUrl: sandbox.baseUrl, keyId: sandbox.keys.test.key_id, secret: sandbox.keys.test.secret }, loadLogger, {
    options,
  });
  return {
    api,
    config: null,
    sandbox,
    close: async () => {
      await api.close();
      await sandbox.close();
    },
  };
}
