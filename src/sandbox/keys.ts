// Key sets and sessions. Only hashes of secrets and session tokens are kept; the plain values are
// returned once, when made.
import type { Mode } from './books.js';
import { effectiveScopes } from './scopes.js';
import { randomToken, sameHash, sha256 } from './secrets.js';

export const SESSION_SECONDS = 3600;
const SWEEP_GRACE_MS = 24 * 3600 * 1000;

export interface KeySet {
  readonly setId: number;
  readonly businessId: number;
  readonly mode: Mode;
  keyId: string;
  secretHash: Buffer;
  readonly scopes: string[];
  suspended: boolean;
  revoked: boolean;
}

export interface Session {
  readonly keySet: KeySet;
  readonly keyId: string;
  readonly expiresMs: number;
  ended: boolean;
}

export interface IssuedKey {
  key_id: string;
  secret: string;
}

export class KeyRegistry {
  #nextSetId = 1;
  readonly #byKeyId = new Map<string, KeySet>();
  readonly #sets = new Map<number, KeySet>();
  readonly #sessions = new Map<string, Session>();

  create(businessId: number, mode: Mode, scopes: readonly string[]): { set: KeySet; issued: IssuedKey } {
    const issued = newCredentials(mode);
    const set: KeySet = {
      setId: this.#nextSetId++,
      businessId,
      mode,
      keyId: issued.key_id,
      secretHash: sha256(issued.secret),
      scopes: effectiveScopes(scopes),
      suspended: false,
      revoked: false,
    };
    this.#byKeyId.set(set.keyId, set);
    this.#sets.set(set.setId, set);
    return { set, issued };
  }

  byKeyId(keyId: string): KeySet | undefined {
    return this.#byKeyId.get(keyId);
  }

  /** The key set when the secret matches; compared by hash in constant time. */
  verify(keyId: string, secret: string): KeySet | undefined {
    const set = this.#byKeyId.get(keyId);
    if (!set || set.revoked) return undefined;
    return sameHash(sha256(secret), set.secretHash) ? set : undefined;
  }

  /** New key ID and secret; the old key and its sessions stop at once. */
  regenerate(set: KeySet): IssuedKey {
    const issued = newCredentials(set.mode);
    this.#byKeyId.delete(set.keyId);
    set.keyId = issued.key_id;
    set.secretHash = sha256(issued.secret);
    this.#byKeyId.set(set.keyId, set);
    this.endSessions(set);
    return issued;
  }

  revoke(set: KeySet): void {
    set.revoked = true;
    this.#byKeyId.delete(set.keyId);
    this.endSessions(set);
  }

  startSession(set: KeySet, nowMs: number): { token: string; session: Session } {
    const token = `svcat_${randomToken(40)}`;
    const session: Session = { keySet: set, keyId: set.keyId, expiresMs: nowMs + SESSION_SECONDS * 1000, ended: false };
    this.#sessions.set(sha256(token).toString('base64'), session);
    return { token, session };
  }

  /** Every session not yet swept, with the hash it is kept under (the token itself is not kept). */
  sessions(): { tokenSha256: string; session: Session }[] {
    return [...this.#sessions].map(([tokenSha256, session]) => ({ tokenSha256, session }));
  }

  session(token: string): Session | undefined {
    return this.#sessions.get(sha256(token).toString('base64'));
  }

  /** Ends the sessions of one key set, or of every key set; returns how many were live. */
  endSessions(set?: KeySet): number {
    let ended = 0;
    for (const s of this.#sessions.values()) {
      if (set && s.keySet !== set) continue;
      if (!s.ended) ended++;
      s.ended = true;
    }
    return ended;
  }

  /**
   * Forgets sessions a day past their expiry so a long-running sandbox does not grow. Until then a late
   * call still hears "expired" (or "ended"), not "not valid".
   */
  sweep(nowMs: number): void {
    for (const [hash, s] of this.#sessions) if (s.expiresMs + SWEEP_GRACE_MS <= nowMs) this.#sessions.delete(hash);
  }
}

function newCredentials(mode: Mode): IssuedKey {
  return { key_id: `svck_${mode}_${randomToken(24)}`, secret: `svc_${mode}_${randomToken(40)}` };
}
