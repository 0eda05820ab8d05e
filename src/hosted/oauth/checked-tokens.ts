// Access tokens checked lately, kept a moment so that a client's calls in quick succession cost one lookup
// in the database, not one each. A revocation through this process (a token, a grant, a key that stopped
// working) drops them at once; one through another process is seen here within the moment (TTL_MS).
import { createHash } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/server';

export const CHECKED_TOKEN_TTL_MS = 2_000;
const MAX_KEPT = 10_000;

const hashOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

export class CheckedTokens {
  readonly #kept = new Map<string, { auth: AuthInfo; until: number }>();

  constructor(
    readonly ttlMs = CHECKED_TOKEN_TTL_MS,
    readonly now: () => number = Date.now,
  ) {}

  get(token: string): AuthInfo | undefined {
    const hash = hashOf(token);
    const kept = this.#kept.get(hash);
    if (!kept) return undefined;
    const now = this.now();
    if (now < kept.until && (kept.auth.expiresAt === undefined || now < kept.auth.expiresAt * 1000)) return kept.auth;
    this.#kept.delete(hash);
    return undefined;
  }

  keep(token: string, auth: AuthInfo): void {
    // The oldest goes first when full (a Map keeps insertion order).
    if (this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value as string);
    this.#kept.set(hashOf(token), { auth, until: this.now() + this.ttlMs });
  }

  forgetToken(token: string): void {
    this.#kept.delete(hashOf(token));
  }

  forgetGrants(grantIds: readonly string[]): void {
    const ids = new Set(grantIds);
    for (const [hash, { auth }] of this.#kept) if (ids.has(String(auth.extra?.grantId))) this.#kept.delete(hash);
  }
}
