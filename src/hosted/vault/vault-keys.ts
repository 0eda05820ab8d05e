// The vault's keys, read from INVOICING_MCP_VAULT_KEY: one or more 32-byte keys written in base64 (e.g.
// `openssl rand -base64 32`), separated by commas. The first seals; every one opens, so a new key put first
// with the old ones after it rotates the key without losing a secret. A key is known by a short id (a hash
// of it) stored beside what it sealed; the key itself never leaves this process.
import { createHash } from 'node:crypto';

export const VAULT_KEY_VARIABLE = 'INVOICING_MCP_VAULT_KEY';
const KEY_BYTES = 32;

export interface VaultKey {
  readonly id: string;
  readonly bytes: Buffer;
}

export interface VaultKeys {
  /** The key that seals. */
  readonly current: VaultKey;
  /** Every key that opens, the current one first. */
  readonly all: readonly VaultKey[];
}

export class VaultKeyError extends Error {
  override name = 'VaultKeyError';
}

function decodeKey(text: string, position: number): Buffer {
  const clean = text.trim();
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(clean)
    ? Buffer.from(clean, clean.includes('-') || clean.includes('_') ? 'base64url' : 'base64')
    : null;
  if (!bytes || bytes.length !== KEY_BYTES) {
    // The value is never echoed: it is, or is close to, a secret.
    throw new VaultKeyError(
      `${VAULT_KEY_VARIABLE}: key ${position} is not ${KEY_BYTES} bytes written in base64 (make one with: openssl rand -base64 32)`,
    );
  }
  return bytes;
}

export function keyId(bytes: Buffer): string {
  return createHash('sha256').update('invoicing-mcp vault key id\n').update(bytes).digest('base64url').slice(0, 12);
}

/** The keys in `raw` (the variable's value), the current one first; a clear error when absent or malformed. */
export function readVaultKeys(raw: string | undefined): VaultKeys {
  if (raw === undefined || raw.trim() === '') {
    throw new VaultKeyError(
      `${VAULT_KEY_VARIABLE} is not set: hosted mode needs a key to encrypt stored secrets (openssl rand -base64 32)`,
    );
  }
  const all: VaultKey[] = [];
  raw.split(',').forEach((part, i) => {
    const bytes = decodeKey(part, i + 1);
    const id = keyId(bytes);
    if (!all.some((k) => k.id === id)) all.push({ id, bytes });
  });
  return { current: all[0] as VaultKey, all };
}
