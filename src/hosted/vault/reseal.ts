// Sealing every stored secret and authorization record again under the vault's first key, in the
// deployment's database: the last step of a key rotation (`invoicing-mcp vault reseal`).
import { PgDb } from '../../store/postgres/db.js';
import { resealRecords } from '../oauth/adapter.js';
import { prepareHostedSchema } from '../store/schema.js';
import type { Sealer } from './sealer.js';
import { Vault } from './vault.js';

export async function resealDeployment(url: string, sealer: Sealer): Promise<{ secrets: number; records: number }> {
  const db = new PgDb(url);
  try {
    await prepareHostedSchema(db);
    const secrets = await new Vault(db, sealer).reseal();
    const records = await resealRecords(db, sealer);
    return { secrets, records };
  } finally {
    await db.close();
  }
}
