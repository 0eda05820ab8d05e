// A webhook delivery as the service sends one: a new event id, signed with the endpoint's secret now.
import { randomBytes } from 'node:crypto';
import { signPayload } from '../../../src/events/signature.js';

/** Posts an `event` with `data` to `url`, signed with `secret`; the answer's status. */
export async function postSignedEvent(url: string, secret: string, event: string, data: Record<string, unknown>): Promise<number> {
  const body = JSON.stringify({ id: `evt_${randomBytes(8).toString('hex')}`, event, created_at: new Date().toISOString(), data });
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(secret, Math.floor(Date.now() / 1000), body) },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}
