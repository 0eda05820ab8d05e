// `invoicing-mcp vault reseal`: the last step of rotating the hosted vault's key. Every stored secret and
// authorization record not sealed under the first key of INVOICING_MCP_VAULT_KEY is sealed again under it.
// Run it once every process of the deployment has been given the new key: a process still on the old key
// alone cannot open what is resealed. Nothing else reseals (a server never does, at start or on a read).
import { parseArgs } from 'node:util';
import { resealDeployment } from '../hosted/vault/reseal.js';
import { Sealer } from '../hosted/vault/sealer.js';
import { readVaultKeys, VAULT_KEY_VARIABLE, VaultKeyError } from '../hosted/vault/vault-keys.js';
import { UsageError } from './sandbox-command.js';
import { ConfigError, type ServiceEnv } from './service-env.js';

export const VAULT_USAGE = `usage: invoicing-mcp vault reseal [--mirror postgres://...]   seal every stored secret again under the first key of ${VAULT_KEY_VARIABLE}
Run it once every process of the deployment has been given the new key (docs/hosted.md, "Rotating the vault key").`;

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export async function runVaultCommand(argv: string[], env: ServiceEnv): Promise<string> {
  const { values, positionals } = parseArgs({ args: argv, options: { mirror: { type: 'string' } }, allowPositionals: true });
  if (positionals.length !== 1 || positionals[0] !== 'reseal') throw new UsageError(`vault: unknown command\n${VAULT_USAGE}`);
  const url = values.mirror ?? env.INVOICING_MCP_MIRROR;
  if (!url || !POSTGRES_URL.test(url)) {
    throw new ConfigError('--mirror', "vault reseal needs the deployment's database: --mirror postgres://... (or INVOICING_MCP_MIRROR)");
  }
  let sealer: Sealer;
  try {
    sealer = new Sealer(readVaultKeys(env[VAULT_KEY_VARIABLE]));
  } catch (err) {
    if (err instanceof VaultKeyError) throw new ConfigError(VAULT_KEY_VARIABLE, err.message);
    throw err;
  }
  const { secrets, records } = await resealDeployment(url, sealer);
  return `vault: sealed ${secrets} stored secrets and ${records} authorization records again under vault key ${sealer.currentKeyId}. Everything stored now opens with that key alone: a process may be given it without the older ones.`;
}
