// Sealing and opening secrets with AES-256-GCM. A sealed value is `v1.<key id>.<iv>.<ciphertext>.<tag>`
// (base64url parts): it names the key that sealed it, so an older key still opens it after a rotation. The
// context (what the secret is for, e.g. its row's name) is bound in as additional data, so a sealed value
// copied to another row does not open there.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { VaultKey, VaultKeys } from './vault-keys.js';

const IV_BYTES = 12;
const VERSION = 'v1';

export class VaultSealError extends Error {
  override name = 'VaultSealError';
}

export interface Opened {
  plain: Buffer;
  /** Sealed under a key other than the current one: to be sealed again. */
  stale: boolean;
}

export class Sealer {
  constructor(readonly keys: VaultKeys) {}

  get currentKeyId(): string {
    return this.keys.current.id;
  }

  seal(plain: Buffer | string, context: string): string {
    const key = this.keys.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain), cipher.final()]);
    return [VERSION, key.id, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string, context: string): Opened {
    const [version, id, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || iv === undefined || body === undefined || tag === undefined) {
      throw new VaultSealError('a stored secret is not in the vault format');
    }
    const key: VaultKey | undefined = this.keys.all.find((k) => k.id === id);
    if (!key) {
      throw new VaultSealError(
        `a stored secret was sealed with vault key ${id}, which is not among the keys given: give it after the new key in INVOICING_MCP_VAULT_KEY`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
      return { plain, stale: key.id !== this.keys.current.id };
    } catch {
      throw new VaultSealError('a stored secret does not open: it was altered, or moved from where it was sealed');
    }
  }

  openText(sealed: string, context: string): { text: string; stale: boolean } {
    const { plain, stale } = this.open(sealed, context);
    return { text: plain.toString('utf8'), stale };
  }
}
