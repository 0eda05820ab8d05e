// What the hosted webhook tests do to a business of the sandbox, by its raw API and admin interface: register
// the webhook URL the sign-in page showed (the sandbox gives its signing secret), draft an invoice and send it
// from the console (the sandbox then delivers `invoice.sent`, signed, to every URL of the business), and read
// what the business is owed from its raw invoices, the ground truth of `report_owed`. Also where a tenant's
// mirror is on Postgres, for a look at what it holds.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { expect } from 'vitest';
import { receivable, type Tally, tally } from '../../answers/ground-truth.js';
import { eventually, type Json, listAll, post, signIn } from '../../contract/sandbox-http.js';
import type { TestSandbox } from '../../support/sandbox.js';
import type { Signer } from './oauth-client.js';

export const WEBHOOK_URL = /\/webhooks\/[A-Za-z0-9_-]{22}$/;

/** Registers `url` as a webhook endpoint of the business; its signing secret, kept among the sandbox's secrets. */
export async function registerWebhook(sb: TestSandbox, businessId: number, url: string): Promise<string> {
  const made = await sb.admin('POST', '/webhooks', { url, business_id: businessId });
  expect(made.status).toBe(201);
  const secret = String(made.body.secret);
  sb.secrets.push(secret);
  return secret;
}

const session = (sb: TestSandbox, signer: Signer) => signIn(sb.baseUrl, { key_id: signer.keyId, secret: signer.secret });

/** A new draft invoice for the business's first active customer; its id. */
export async function draftInvoice(sb: TestSandbox, signer: Signer): Promise<number> {
  const books = await session(sb, signer);
  const customer = (await listAll(books, '/api/v1/customers')).find((c: Json) => c.status === 'active');
  const made = await post(books, '/api/v1/invoices', {
    customer_id: customer.id,
    items: [{ description: 'Webhook test work', quantity: 1, unit_price: '100.00' }],
  });
  expect(made.status, made.text).toBe(201);
  return made.body.data.id as number;
}

/** Sends the invoice from the console: the sandbox delivers `invoice.sent` to the business's endpoints. */
export async function sendInvoice(sb: TestSandbox, businessId: number, id: number): Promise<void> {
  const sent = await sb.admin('POST', `/invoices/${id}/send?business_id=${businessId}`);
  expect(sent.status).toBe(200);
}

/** What the business is owed per currency, summed here from its raw invoices. */
export async function owedTruth(sb: TestSandbox, signer: Signer): Promise<Map<string, Tally>> {
  const invoices = await listAll(await session(sb, signer), '/api/v1/invoices');
  return tally(
    invoices.filter(receivable),
    (i) => i.currency,
    (i) => i.balance,
  );
}

/** The statuses of delivery attempts to `url` the sandbox recorded. */
async function deliveriesTo(sb: TestSandbox, url: string): Promise<(number | null)[]> {
  const { body } = await sb.admin('GET', '/deliveries');
  return (body.data as Json[]).filter((d) => d.url === url).map((d) => d.status);
}

/**
 * Resolves once the sandbox notes a delivery to `url` answered 204 (it notes the answer once it has it, which
 * may be after the subscribers heard); rejects after 10 s.
 */
export async function deliveryTaken(sb: TestSandbox, url: string): Promise<void> {
  await eventually(async () => ((await deliveriesTo(sb, url)).includes(204) ? true : undefined), 10_000);
}

/** The schema of a key's books mirror: `invoicing_mcp_k_` and a digest of the service and key. */
export const tenantSchemaOf = (baseUrl: string, keyId: string): string =>
  `invoicing_mcp_k_${createHash('sha256')
    .update(`${baseUrl.replace(/\/+$/, '')}|${keyId}`)
    .digest('hex')
    .slice(0, 16)}`;

/** The status of an invoice in the tenant's own books mirror (its schema on Postgres), or undefined. */
export async function mirroredStatus(database: string, sb: TestSandbox, keyId: string, id: number): Promise<string | undefined> {
  const schema = tenantSchemaOf(sb.baseUrl, keyId);
  const db = new pg.Client({ connectionString: database });
  await db.connect();
  try {
    const { rows } = await db.query(`SELECT status FROM ${schema}.invoices WHERE id = $1`, [id]).catch(() => ({ rows: [] }));
    return rows[0]?.status as string | undefined;
  } finally {
    await db.end();
  }
}
