// The vault on Postgres (src/hosted/vault/vault.ts): secrets sealed at rest and shared by two processes'
// pools, the key rotated without losing one (read under the old key, sealed again under the new), and no
// secret anywhere in the database in the clear.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareHostedSchema } from '../../src/hosted/store/schema.js';
import { Sealer } from '../../src/hosted/vault/sealer.js';
import { Vault } from '../../src/hosted/vault/vault.js';
import { readVaultKeys } from '../../src/hosted/vault/vault-keys.js';
import { PgDb } from '../../src/store/postgres/db.js';
import { postgresDatabase } from '../support/postgres.js';

const newKey = (): string => randomBytes(32).toString('base64');
let url: string;
const opened: PgDb[] = [];

async function vaultOn(keys: string): Promise<Vault> {
  const db = new PgDb(url);
  opened.push(db);
  await prepareHostedSchema(db);
  return new Vault(db, new Sealer(readVaultKeys(keys)));
}

/** Every text cell of every table in the hosted schema, read without the vault. */
async function everyCell(): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = (await client.query('SELECT * FROM invoicing_mcp_hosted.secrets')).rows;
    return JSON.stringify(rows);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  url = await postgresDatabase('hosted_vault');
});

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});

describe('the vault on Postgres', () => {
  it('keeps secrets sealed, shared by two processes, and forgets one when told', async () => {
    const key = newKey();
    const [one, two] = await Promise.all([vaultOn(key), vaultOn(key)]);
    const secret = `svc_live_${randomBytes(20).toString('hex')}`;
    await one.put('key:svck_live_a', secret);
    expect(await two.get('key:svck_live_a')).toBe(secret);
    expect(await everyCell()).not.toContain(secret);
    await two.put('key:svck_live_a', `${secret}2`);
    expect(await one.get('key:svck_live_a')).toBe(`${secret}2`);
    await one.delete('key:svck_live_a');
    expect(await two.get('key:svck_live_a')).toBeUndefined();
    expect(await one.get('never:made')).toBeUndefined();
  });

  it('rotates its key: the old one opens, reading seals nothing again (the old key still reads), reseal does, then the old can go', async () => {
    const [oldKey, newOne] = [newKey(), newKey()];
    const before = await vaultOn(oldKey);
    const secrets = Array.from({ length: 3 }, (_, i) => [`rot:${i}`, `svc_test_${randomBytes(16).toString('hex')}`] as const);
    for (const [name, secret] of secrets) await before.put(name, secret);
    const after = await vaultOn(`${newOne},${oldKey}`);
    const [first] = secrets;
    expect(await after.get(first?.[0] as string)).toBe(first?.[1]);
    expect(await before.get(first?.[0] as string)).toBe(first?.[1]);
    expect(await after.reseal()).toBe(secrets.length);
    expect(await after.reseal()).toBe(0);
    const onlyNew = await vaultOn(newOne);
    for (const [name, secret] of secrets) expect(await onlyNew.get(name)).toBe(secret);
    await expect(before.get(first?.[0] as string)).rejects.toThrow(/which this process was not given/);
    const cells = await everyCell();
    for (const [, secret] of secrets) expect(cells).not.toContain(secret);
    for (const k of [oldKey, newOne]) expect(cells).not.toContain(k);
  });
});
