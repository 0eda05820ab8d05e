// The authorization server's storage on Postgres: every record (client, grant, code, token, session,
// interaction) sealed whole by the vault's key, found by a hash of its id (a token's id is the token for
// opaque tokens, so it is never stored). The grant id stays in the clear so a grant's tokens can be
// revoked together; it gives no access by itself. A code or refresh token is used up by one statement that
// succeeds once, so of requests racing with the same one exactly one goes on: every other is refused and ends
// the grant, as the library does when a used one comes back later. A registered client that never got a
// grant expires 24 hours after it registered; one with grants lives until 30 days after its last grant's
// expiry; swept in bounded batches, so what anyone registers does not stay. A one-time id (a client
// assertion's jti) is kept by an insert that succeeds once, so of requests racing with it exactly one goes on.
import { createHash } from 'node:crypto';
import { type Adapter, type AdapterFactory, type AdapterPayload, errors } from 'oidc-provider';
import { str } from '../../store/cells.js';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';
import type { Sealer } from '../vault/sealer.js';

const TABLE = `${HOSTED_SCHEMA}.oauth`;

/** How long a registered client lives without a grant, and after its last grant's expiry. */
export const CLIENT_LIFETIMES = { unused: 24 * 3_600_000, afterGrant: 30 * 24 * 3_600_000 } as const;

/** A time of the injected clock, as Postgres takes it. */
const AT = 'to_timestamp(?::double precision / 1000)';

const hashOf = (model: string, value: string): string => createHash('sha256').update(`${model}\n${value}`).digest('base64url');

/** Told of each grant ended because something of it was presented again after its use. */
export type GrantEnded = (grantId: string) => void;

export interface AdapterHooks {
  grantEnded: GrantEnded;
  /**
   * Called as a code or refresh token is about to be used up: throws (leaving it as it was) when the request
   * presenting it would be refused after its use.
   */
  beforeUse?: (() => void) | undefined;
}

const USED_UP: Record<string, string> = {
  AuthorizationCode: 'authorization code already consumed',
  RefreshToken: 'refresh token already used',
};

class PostgresAdapter implements Adapter {
  constructor(
    readonly model: string,
    readonly db: PgDb,
    readonly sealer: Sealer,
    readonly hooks: AdapterHooks,
    readonly now: () => number,
  ) {}

  /** When a record stored now for `expiresIn` seconds expires (ms), or null for never. */
  #expiry(expiresIn: number | undefined): number | null {
    if (expiresIn !== undefined) return this.now() + expiresIn * 1000;
    return this.model === 'Client' ? this.now() + CLIENT_LIFETIMES.unused : null;
  }

  /** A grant keeps its client until 30 days after the grant's own expiry (never shortening it). */
  async #keepClient(clientId: unknown, grantExpiry: number | null): Promise<void> {
    if (typeof clientId !== 'string') return;
    await this.db.rows(
      `UPDATE ${TABLE} SET expires_at = GREATEST(expires_at, ${AT}) WHERE model = 'Client' AND id_hash = ? AND expires_at IS NOT NULL`,
      [(grantExpiry ?? this.now()) + CLIENT_LIFETIMES.afterGrant, hashOf('Client', clientId)],
    );
  }

  #context(idHash: string): string {
    return `oauth:${this.model}:${idHash}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const idHash = hashOf(this.model, id);
    const sealed = this.sealer.seal(JSON.stringify(payload), this.#context(idHash));
    const expiresAt = this.#expiry(expiresIn);
    // The library asks whether a one-time id was seen, then saves it: requests racing with the same one all
    // pass the question. Only the first save goes on.
    const onConflict =
      this.model === 'ReplayDetection'
        ? 'DO NOTHING RETURNING 1'
        : `DO UPDATE SET uid_hash = excluded.uid_hash, user_code_hash = excluded.user_code_hash,
         grant_id = excluded.grant_id, sealed = excluded.sealed, key_id = excluded.key_id, expires_at = excluded.expires_at`;
    const saved = await this.db.rows(
      `INSERT INTO ${TABLE} (model, id_hash, uid_hash, user_code_hash, grant_id, sealed, key_id, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, CASE WHEN ?::double precision IS NULL THEN NULL ELSE ${AT} END)
       ON CONFLICT (model, id_hash) ${onConflict}`,
      [
        this.model,
        idHash,
        payload.uid ? hashOf(this.model, payload.uid) : null,
        payload.userCode ? hashOf(this.model, payload.userCode) : null,
        payload.grantId ?? null,
        sealed,
        this.sealer.currentKeyId,
        expiresAt,
        expiresAt,
      ],
    );
    if (this.model === 'ReplayDetection' && saved.length === 0) throw new errors.InvalidRequest('replay detected');
    if (this.model === 'Grant') await this.#keepClient(payload.clientId, expiresAt);
  }

  async #findWhere(column: string, hash: string): Promise<AdapterPayload | undefined> {
    const [row] = await this.db.rows(
      `SELECT id_hash, sealed, floor(extract(epoch FROM consumed_at))::int FROM ${TABLE}
       WHERE model = ? AND ${column} = ? AND (expires_at IS NULL OR expires_at > ${AT})`,
      [this.model, hash, this.now()],
    );
    if (!row) return undefined;
    const { text } = this.sealer.openText(str(row[1]), this.#context(str(row[0])));
    const payload = JSON.parse(text) as AdapterPayload;
    return row[2] === null ? payload : { ...payload, consumed: Number(row[2]) };
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere('id_hash', hashOf(this.model, id));
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere('uid_hash', hashOf(this.model, uid));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere('user_code_hash', hashOf(this.model, userCode));
  }

  /**
   * The library finds a record, checks it unused, then consumes it: requests racing with the same one all
   * pass the check. Only the first to get here goes on; any other was a reuse, and ends the grant.
   */
  async consume(id: string): Promise<void> {
    this.hooks.beforeUse?.();
    const idHash = hashOf(this.model, id);
    const taken = await this.db.rows(
      `UPDATE ${TABLE} SET consumed_at = now() WHERE model = ? AND id_hash = ? AND consumed_at IS NULL RETURNING 1`,
      [this.model, idHash],
    );
    if (taken.length === 1) return;
    const [row] = await this.db.rows(`SELECT grant_id FROM ${TABLE} WHERE model = ? AND id_hash = ?`, [this.model, idHash]);
    const grantId = row?.[0];
    if (typeof grantId === 'string') {
      await revokeGrants(this.db, [grantId]);
      this.hooks.grantEnded(grantId);
    }
    throw new errors.InvalidGrant(USED_UP[this.model] ?? `${this.model} already consumed`);
  }

  async destroy(id: string): Promise<void> {
    await this.db.rows(`DELETE FROM ${TABLE} WHERE model = ? AND id_hash = ?`, [this.model, hashOf(this.model, id)]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.rows(`DELETE FROM ${TABLE} WHERE grant_id = ?`, [grantId]);
  }
}

/** The adapter factory oidc-provider takes: one adapter per model, all on the same table; `now` is its clock. */
export function postgresAdapter(db: PgDb, sealer: Sealer, hooks: AdapterHooks, now: () => number = Date.now): AdapterFactory {
  return (model) => new PostgresAdapter(model, db, sealer, hooks, now);
}

/**
 * Ends the sign-in `uid` (its interaction); whether this call did. Allow and Deny each end it first, so of
 * the same form posted at once (a double click, two processes) exactly one goes on. The library's saves of
 * the interaction leave `consumed_at` alone, and the mark goes with the record.
 */
export async function endInteraction(db: PgDb, uid: string): Promise<boolean> {
  const ended = await db.rows(
    `UPDATE ${TABLE} SET consumed_at = now() WHERE model = 'Interaction' AND id_hash = ? AND consumed_at IS NULL RETURNING 1`,
    [hashOf('Interaction', uid)],
  );
  return ended.length === 1;
}

/** Forgets at most `max` records past their expiry at `now`; how many. */
export async function sweepExpired(db: PgDb, now: number, max: number): Promise<number> {
  const swept = await db.rows(
    `DELETE FROM ${TABLE} WHERE (model, id_hash) IN (SELECT model, id_hash FROM ${TABLE} WHERE expires_at <= ${AT} LIMIT ?) RETURNING 1`,
    [now, max],
  );
  return swept.length;
}

/** Seals every record not under the current vault key again (after a rotation); how many. */
export async function resealRecords(db: PgDb, sealer: Sealer): Promise<number> {
  const rows = await db.rows(`SELECT model, id_hash, sealed FROM ${TABLE} WHERE key_id <> ?`, [sealer.currentKeyId]);
  let count = 0;
  for (const [model, idHash, sealed] of rows) {
    const context = `oauth:${str(model)}:${str(idHash)}`;
    const { plain } = sealer.open(str(sealed), context);
    const done = await db.rows(`UPDATE ${TABLE} SET sealed = ?, key_id = ? WHERE model = ? AND id_hash = ? AND sealed = ? RETURNING 1`, [
      sealer.seal(plain, context),
      sealer.currentKeyId,
      str(model),
      str(idHash),
      str(sealed),
    ]);
    count += done.length;
  }
  return count;
}

/** Ends grants: each grant's record and every code and token issued under it. */
export async function revokeGrants(db: PgDb, grantIds: readonly string[]): Promise<void> {
  if (grantIds.length === 0) return;
  await db.rows(
    `DELETE FROM ${TABLE} WHERE grant_id IN (SELECT jsonb_array_elements_text(?::jsonb))
       OR (model = 'Grant' AND id_hash IN (SELECT jsonb_array_elements_text(?::jsonb)))`,
    [JSON.stringify(grantIds), JSON.stringify(grantIds.map((id) => hashOf('Grant', id)))],
  );
}
