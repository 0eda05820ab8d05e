// The businesses signed in, on Postgres: each key's business, mode, scopes and webhook id in the clear (none
// of it is secret), its secret and its webhook signing secret in the vault. A key signed in again (new grant,
// same key) replaces its record; a signing secret given once is kept until another replaces it.

import { num, str } from '../../store/cells.js';
import type { PgDb } from '../../store/postgres/db.js';
import { HOSTED_SCHEMA } from '../store/schema.js';
import type { Vault } from '../vault/vault.js';

export interface TenantRecord {
  keyId: string;
  baseUrl: string;
  businessId: number;
  businessName: string;
  mode: 'live' | 'test';
  scopes: string[];
  /** What the key's webhook URL names it by. */
  webhookId: string;
}

const secretName = (keyId: string): string => `key:${keyId}`;
const webhookSecretName = (keyId: string): string => `webhook:${keyId}`;

export class TenantStore {
  constructor(
    readonly db: PgDb,
    readonly vault: Vault,
  ) {}

  async save(record: TenantRecord, secret: string): Promise<void> {
    await this.vault.put(secretName(record.keyId), secret);
    await this.db.rows(
      `INSERT INTO ${HOSTED_SCHEMA}.tenants (key_id, base_url, business_id, business_name, mode, scopes, webhook_id) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET base_url = excluded.base_url, business_id = excluded.business_id,
         business_name = excluded.business_name, mode = excluded.mode, scopes = excluded.scopes,
         webhook_id = excluded.webhook_id, signed_in_at = now()`,
      [record.keyId, record.baseUrl, record.businessId, record.businessName, record.mode, record.scopes.join(' '), record.webhookId],
    );
  }

  /** The key's record and secret, and whether a webhook signing secret is kept; undefined when never signed in or forgotten. */
  async find(keyId: string): Promise<{ record: TenantRecord; secret: string; webhooks: boolean } | undefined> {
    const [row] = await this.db.rows(
      `SELECT key_id, base_url, business_id, business_name, mode, scopes, webhook_id FROM ${HOSTED_SCHEMA}.tenants WHERE key_id = ?`,
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
      webhookId: row[6] === null ? '' : str(row[6]),
    };
    return { record, secret, webhooks: await this.hasWebhookSecret(keyId) };
  }

  /** The key a webhook id names, when one does. */
  async keyOfWebhook(webhookId: string): Promise<string | undefined> {
    const [row] = await this.db.rows(`SELECT key_id FROM ${HOSTED_SCHEMA}.tenants WHERE webhook_id = ?`, [webhookId]);
    return row ? str(row[0]) : undefined;
  }

  async saveWebhookSecret(keyId: string, secret: string): Promise<void> {
    await this.vault.put(webhookSecretName(keyId), secret);
  }

  webhookSecret(keyId: string): Promise<string | undefined> {
    return this.vault.get(webhookSecretName(keyId));
  }

  hasWebhookSecret(keyId: string): Promise<boolean> {
    return this.vault.has(webhookSecretName(keyId));
  }

  /** Forgets a key: its record, its secret and its webhook signing secret (a key that stopped working). */
  async forget(keyId: string): Promise<void> {
    await this.vault.delete(secretName(keyId));
    await this.vault.delete(webhookSecretName(keyId));
    await this.db.rows(`DELETE FROM ${HOSTED_SCHEMA}.tenants WHERE key_id = ?`, [keyId]);
  }
}
