// Hosted mode's settings: `--hosted` (over HTTP), `--public-url` (the canonical URL of /mcp), a Postgres
// `--mirror` (grants, the vault and the books live there), INVOICING_MCP_VAULT_KEY and SVC_BASE_URL; no
// SVC_KEY_ID or SVC_SECRET (each business signs in with its own key) and no --http-token (people sign in
// with OAuth). Each missing or wrong setting is refused by name before anything starts.
import { baseUrlProblem, normaliseBaseUrl } from '../api/url.js';
import { isLoopbackHost } from '../core/loopback.js';
import { canonicalResource } from '../hosted/oauth/resource.js';
import { readVaultKeys, VAULT_KEY_VARIABLE, VaultKeyError } from '../hosted/vault/vault-keys.js';
import type { ServeOptions } from './serve-flags.js';
import { ConfigError, readPollSeconds, type ServiceEnv } from './service-env.js';

export interface HostedConfig {
  /** The canonical URL of /mcp. */
  readonly resource: string;
  readonly mirrorUrl: string;
  readonly serviceUrl: string;
  readonly vaultKey: string;
  readonly clientsFile: string | null;
  /** The longest gap between each tenant's background syncs of its books mirror (SVC_POLL_SECONDS); 0 = none. */
  readonly pollSeconds: number;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

function readPublicUrl(raw: string | null): string {
  if (raw === null) {
    throw new ConfigError(
      '--public-url',
      '--hosted needs --public-url (or INVOICING_MCP_PUBLIC_URL): the https:// URL people reach /mcp at',
    );
  }
  const resource = canonicalResource(raw);
  const url = resource === null ? null : new URL(resource);
  if (url?.pathname !== '/mcp' || url.search !== '') {
    throw new ConfigError(
      '--public-url',
      `--public-url must be an absolute URL ending in /mcp, such as https://books.example.com/mcp, not "${raw}"`,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ConfigError('--public-url', '--public-url must use https:// (plain http:// only on a loopback host, for trying it out)');
  }
  return resource as string;
}

export function loadHostedConfig(options: ServeOptions, env: ServiceEnv): HostedConfig {
  const resource = readPublicUrl(options.publicUrl);
  const mirror = options.mirror;
  if (mirror === null || !POSTGRES_URL.test(mirror)) {
    throw new ConfigError(
      '--mirror',
      '--hosted keeps grants, the vault and the books in Postgres: set --mirror postgres://... (or INVOICING_MCP_MIRROR)',
    );
  }
  for (const name of ['SVC_KEY_ID', 'SVC_SECRET']) {
    if (env[name]?.trim())
      throw new ConfigError(name, `${name} is set, but in hosted mode each business signs in with its own key: unset ${name}`);
  }
  const base = env.SVC_BASE_URL?.trim();
  if (!base)
    throw new ConfigError('SVC_BASE_URL', 'SVC_BASE_URL is not set: hosted mode needs the https:// base URL of the Invoicing Service');
  let serviceUrl: URL;
  try {
    serviceUrl = new URL(base);
  } catch {
    throw new ConfigError('SVC_BASE_URL', 'SVC_BASE_URL is not a URL: give an absolute https:// URL such as https://invoicing.example.com');
  }
  const problem = baseUrlProblem(serviceUrl);
  if (problem) throw new ConfigError('SVC_BASE_URL', `SVC_BASE_URL ${problem}`);
  const vaultKey = env[VAULT_KEY_VARIABLE];
  try {
    readVaultKeys(vaultKey);
  } catch (err) {
    if (err instanceof VaultKeyError) throw new ConfigError(VAULT_KEY_VARIABLE, err.message);
    throw err;
  }
  const config = {
    resource,
    serviceUrl: normaliseBaseUrl(serviceUrl),
    clientsFile: options.oauthClients,
    pollSeconds: readPollSeconds(env),
  };
  // The vault key and the database's password are there to use, not to show: a config printed or logged
  // leaves them out.
  Object.defineProperty(config, 'vaultKey', { value: vaultKey, enumerable: false });
  Object.defineProperty(config, 'mirrorUrl', { value: mirror, enumerable: false });
  return Object.freeze(config) as HostedConfig;
}
