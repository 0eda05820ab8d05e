// Sealing and opening secrets with AES-256-GCM. A sealed value is `v1.<key id>.<iv>.<ciphertext>.<tag>`
// (base64url parts): it names the key that sealed it, so an older key still opens it after a rotation. The
// context (what the secret is for, e.g. its row's name) is bound in as additional data, so a sealed value
// copied to another row does not open there. A value sealed under a key this process was not given (another
// process sealed it under a newer one during a rolling rotation) is VaultKeyMissing: a 503, never a 500.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { VaultKey, VaultKeys } from './vault-keys.js';

const IV_BYTES = 12;
const VERSION = 'v1';

export class VaultSealError extends Error {
  override name = 'VaultSealError';
}

export interface Opened {
  plain: Buffer;
  /** Sealed under a key other than the current one: `invoicing-mcp vault reseal` seals it again. */
  stale: boolean;
}

/** A secret sealed under a vault key this process lacks; `keyId` is the key's fingerprint, never the key. */
export class VaultKeyMissing extends VaultSealError {
  override name = 'VaultKeyMissing';
  /** What oidc-provider and fastify answer it with: the deployment is mid-rotation, not broken. */
  readonly statusCode = 503;
  readonly expose = false;

  constructor(readonly keyId: string) {
    super(
      `a stored secret was sealed with vault key ${keyId}, which this process was not given: give it in INVOICING_MCP_VAULT_KEY (every process needs every key in use)`,
    );
  }
}

export class Sealer {
  constructor(
    readonly keys: VaultKeys,
    /** Told each time a secret sealed under a key this process lacks is met (its fingerprint). */
    readonly onMissingKey: (keyId: string) => void = () => undefined,
  ) {}

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
      this.onMissingKey(String(id));
      throw new VaultKeyMissing(String(id));
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
