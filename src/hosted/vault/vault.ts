// The vault: named secrets sealed at rest in Postgres, shared by every process of a deployment. A secret
// sealed under an older vault key opens while that key is still given, and is sealed again under the
// current key only when `reseal` runs (`invoicing-mcp vault reseal`, once every process has the new key):
// never on a read, since a process of a rolling deploy still on the old key could then no longer open it.

import { str } from '../../store/cells.js';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';
import type { Sealer } from './sealer.js';

const TABLE = `${HOSTED_SCHEMA}.secrets`;
/** The additional data a named secret is sealed with: moved to another name, it does not open. */
const context = (name: string): string => `secret:${name}`;

export class Vault {
  constructor(
    readonly db: PgDb,
    readonly sealer: Sealer,
  ) {}

  async put(name: string, secret: string): Promise<void> {
    const sealed = this.sealer.seal(secret, context(name));
    await this.db.rows(
      `INSERT INTO ${TABLE} (name, sealed, key_id) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed, key_id = excluded.key_id, updated_at = now()`,
      [name, sealed, this.sealer.currentKeyId],
    );
  }

  async get(name: string): Promise<string | undefined> {
    const [row] = await this.db.rows(`SELECT sealed FROM ${TABLE} WHERE name = ?`, [name]);
    if (!row) return undefined;
    return this.sealer.openText(str(row[0]), context(name)).text;
  }

  /** Whether a secret is kept under `name` (without opening it). */
  async has(name: string): Promise<boolean> {
    return (await this.db.rows(`SELECT 1 FROM ${TABLE} WHERE name = ?`, [name])).length > 0;
  }

  /** The secret under `name`, made by `make` and kept when there is none yet (the first process to ask wins). */
  async getOrCreate(name: string, make: () => string): Promise<string> {
    const found = await this.get(name);
    if (found !== undefined) return found;
    await this.db.rows(`INSERT INTO ${TABLE} (name, sealed, key_id) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`, [
      name,
      this.sealer.seal(make(), context(name)),
      this.sealer.currentKeyId,
    ]);
    return (await this.get(name)) as string;
  }

  async delete(name: string): Promise<void> {
    await this.db.rows(`DELETE FROM ${TABLE} WHERE name = ?`, [name]);
  }

  /** Seals every secret not under the current key again; how many it sealed. */
  async reseal(): Promise<number> {
    const rows = await this.db.rows(`SELECT name, sealed FROM ${TABLE} WHERE key_id <> ?`, [this.sealer.currentKeyId]);
    let count = 0;
    for (const [name, sealed] of rows) {
      const { text } = this.sealer.openText(str(sealed), context(str(name)));
      if (await this.#sealAgain(str(name), str(sealed), text)) count++;
    }
    return count;
  }

  /** Replaces the sealed value only if no one changed it meanwhile (another process may be doing the same). */
  async #sealAgain(name: string, was: string, text: string): Promise<boolean> {
    const rows = await this.db.rows(`UPDATE ${TABLE} SET sealed = ?, key_id = ? WHERE name = ? AND sealed = ? RETURNING name`, [
      this.sealer.seal(text, context(name)),
      this.sealer.currentKeyId,
      name,
      was,
    ]);
    return rows.length === 1;
  }
}
