// Hosted mode's tables on Postgres, in a schema of their own (apart from the mirror's, which is rebuilt on a
// change of version: grants must outlive that). Every secret is stored sealed (vault/sealer.ts); a row is
// found by a hash of its token or id, never by the value itself.
import type { PgDb } from '../../store/postgres/db.js';

export const HOSTED_SCHEMA = 'invoicing_mcp_hosted';

/**
 * Where every process hears that an endpoint's signing secret or its tenant changed (given, replaced, forgotten):
 * the database says it at the commit of the change, whichever process (or version of the code) made it.
 */
export const WEBHOOKS_CHANGED = `${HOSTED_SCHEMA}_webhooks`;

/** A row trigger that says so on WEBHOOKS_CHANGED, made once (`CREATE TRIGGER` has no IF NOT EXISTS). */
const changeTrigger = (name: string, table: string, events: string, when = ''): string =>
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT FROM pg_trigger WHERE tgname = '${name}' AND tgrelid = '${HOSTED_SCHEMA}.${table}'::regclass) THEN
       CREATE TRIGGER ${name} AFTER ${events} ON ${HOSTED_SCHEMA}.${table} FOR EACH ROW ${when}
         EXECUTE FUNCTION ${HOSTED_SCHEMA}.webhooks_changed();
     END IF;
   END $$`;

const STATEMENTS = [
  `CREATE SCHEMA IF NOT EXISTS ${HOSTED_SCHEMA}`,
  // Named secrets: a business key's secret, a webhook signing secret.
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.secrets (
     name text PRIMARY KEY,
     sealed text NOT NULL,
     key_id text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  // The authorization server's records (grants, codes, tokens, clients, sessions, interactions).
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.oauth (
     model text NOT NULL,
     id_hash text NOT NULL,
     uid_hash text,
     user_code_hash text,
     grant_id text,
     sealed text NOT NULL,
     key_id text NOT NULL,
     expires_at timestamptz,
     consumed_at timestamptz,
     PRIMARY KEY (model, id_hash)
   )`,
  // The businesses signed in: what their key is (no secret: that is in `secrets` under `key:<key id>`).
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.tenants (
     key_id text PRIMARY KEY,
     base_url text NOT NULL,
     business_id bigint NOT NULL,
     business_name text NOT NULL,
     mode text NOT NULL,
     scopes text NOT NULL,
     signed_in_at timestamptz NOT NULL DEFAULT now()
   )`,
  // The audit log of grants: when, which business and key, which client, what happened. No secrets.
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.grant_log (
     at timestamptz NOT NULL DEFAULT now(),
     event text NOT NULL,
     grant_id text,
     client_id text,
     key_id text,
     business_id bigint,
     detail text
   )`,
  // Each key's webhook URL names it by this id (webhooks/webhook-ids.ts); its signing secret is in `secrets`.
  `ALTER TABLE ${HOSTED_SCHEMA}.tenants ADD COLUMN IF NOT EXISTS webhook_id text`,
  `CREATE UNIQUE INDEX IF NOT EXISTS tenants_webhook ON ${HOSTED_SCHEMA}.tenants (webhook_id)`,
  // Every process keeps its endpoints' secrets in memory (tenants/tenants.ts) and drops them when told here.
  `CREATE OR REPLACE FUNCTION ${HOSTED_SCHEMA}.webhooks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN PERFORM pg_notify('${WEBHOOKS_CHANGED}', ''); RETURN NULL; END $$`,
  changeTrigger('webhook_secret_set', 'secrets', 'INSERT OR UPDATE', "WHEN (NEW.name LIKE 'webhook:%')"),
  changeTrigger('webhook_secret_gone', 'secrets', 'DELETE', "WHEN (OLD.name LIKE 'webhook:%')"),
  changeTrigger('webhook_tenant_changed', 'tenants', 'UPDATE OR DELETE'),
  `CREATE INDEX IF NOT EXISTS oauth_uid ON ${HOSTED_SCHEMA}.oauth (model, uid_hash)`,
  `CREATE INDEX IF NOT EXISTS oauth_grant ON ${HOSTED_SCHEMA}.oauth (grant_id)`,
  `CREATE INDEX IF NOT EXISTS oauth_expires ON ${HOSTED_SCHEMA}.oauth (expires_at)`,
  // Registered clients expire (oauth/adapter.ts); one stored before they did is given 60 days, past the end of
  // any grant it may hold (30 days) and the 30 days after. Registration access tokens are no longer issued.
  `UPDATE ${HOSTED_SCHEMA}.oauth SET expires_at = now() + interval '60 days' WHERE model = 'Client' AND expires_at IS NULL`,
  `DELETE FROM ${HOSTED_SCHEMA}.oauth WHERE model = 'RegistrationAccessToken'`,
  // Failed sign-ins counted per sign-in page, client address and key ID, each named by a keyed hash
  // (limits/failed-sign-ins.ts); the deployment's sign-ins at the service in the last minute (limits/service-sign-ins.ts).
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.sign_in_failures (
     subject text PRIMARY KEY,
     window_start_ms bigint NOT NULL,
     count integer NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.service_sign_ins (at_ms bigint NOT NULL, kind text NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS service_sign_ins_at ON ${HOSTED_SCHEMA}.service_sign_ins (at_ms)`,
  // Whose each was, as keyed hashes: a person's client address, and the business's key ID.
  `ALTER TABLE ${HOSTED_SCHEMA}.service_sign_ins ADD COLUMN IF NOT EXISTS address text`,
  `ALTER TABLE ${HOSTED_SCHEMA}.service_sign_ins ADD COLUMN IF NOT EXISTS business text`,
  // Key IDs and secrets just checked with the service, found by a keyed hash of the pair (signin/verified-keys.ts).
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.verified_keys (
     subject text PRIMARY KEY,
     checked text,
     until_ms bigint NOT NULL
   )`,
  // Dynamic registrations per client address in the current hour, named by a keyed hash (limits/registrations.ts).
  `CREATE TABLE IF NOT EXISTS ${HOSTED_SCHEMA}.registrations (
     subject text PRIMARY KEY,
     window_start_ms bigint NOT NULL,
     count integer NOT NULL
   )`,
];

/** Makes the tables when missing; processes starting together do it one at a time. */
export async function prepareHostedSchema(db: PgDb): Promise<void> {
  await db.transaction(async (query) => {
    await query('SELECT pg_advisory_xact_lock(hashtext(?))', [HOSTED_SCHEMA]);
    for (const statement of STATEMENTS) await query(statement);
  });
}
