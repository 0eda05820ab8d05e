// The businesses signed in, on Postgres: each key's business, mode and scopes in the clear (none of it is
// secret), its secret in the vault. A key signed in again (new grant, same key) replaces its record.
import type { PgDb } from '../../books/postgres/db.js';
import { num, str } from '../../books/sql/rows.js';
import { HOSTED_SCHEMA } from '../store/schema.js';
import type { Vault } from '../vault/vault.js';

export interface TenantRecord {
  keyId: string;
  baseUrl: string;
  businessId: number;
  businessName: string;
  mode: 'live' | 'test';
  scopes: string[];
}

const secretName = (keyId: string): string => `key:${keyId}`;

export class TenantStore {
  constructor(
    readonly db: PgDb,
    readonly vault: Vault,
  ) {}

  async save(record: TenantRecord, secret: string): Promise<void> {
    await this.vault.put(secretName(record.keyId), secret);
    await this.db.rows(
      `INSERT INTO ${HOSTED_SCHEMA}.tenants (key_id, base_url, business_id, business_name, mode, scopes) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET base_url = excluded.base_url, business_id = excluded.business_id,
         business_name = excluded.business_name, mode = excluded.mode, scopes = excluded.scopes, signed_in_at = now()`,
      [record.keyId, record.baseUrl, record.businessId, record.businessName, record.mode, record.scopes.join(' ')],
    );
  }

  /** The key's record and secret; undefined when it was never signed in or has been forgotten. */
  async find(keyId: string): Promise<{ record: TenantRecord; secret: string } | undefined> {
    const [row] = await this.db.rows(
      `SELECT key_id, base_url, business_id, business_name, mode, scopes FROM ${HOSTED_SCHEMA}.tenants WHERE key_id = ?`,
      [keyId],
    );
    const secret = await this.vault.get(secretName(keyId));
    if (!row || secret === undefined) return undefined;
    const record: TenantRecord = {
      keyId: str(row[0]),
      baseUrl: str(row[1]),
      businessId: num(row[2]),
      businessName: str(row[3]),
      mode: str(row[4]) === 'live' ? 'live' : 'test',
      scopes: str(row[5]).split(' ').filter(Boolean),
    };
    return { record, secret };
  }

  /** Forgets a key: its record and its secret (a key that stopped working). */
  async forget(keyId: string): Promise<void> {
    await this.vault.delete(secretName(keyId));
    await this.db.rows(`DELETE FROM ${HOSTED_SCHEMA}.tenants WHERE key_id = ?`, [keyId]);
  }
}
