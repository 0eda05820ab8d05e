// Each business key's webhook URL: the same for the same key under the same deployment key, another for
// another key or another deployment, shaped as the receiver's route takes it, and telling nothing of the key.
import { describe, expect, it } from 'vitest';
import { WEBHOOK_ID, WebhookIds } from '../../src/hosted/webhooks/webhook-ids.js';

const SERVICE = 'https://invoicing.example.com';
const KEY = 'svck_live_0123456789abcdef';

describe('webhook ids', () => {
  const ids = new WebhookIds('https://books.example.com', 'deployment-key-one');

  it('is the same for a key each time, and of the route shape', () => {
    const id = ids.idOf(SERVICE, KEY);
    expect(id).toMatch(WEBHOOK_ID);
    expect(ids.idOf(`${SERVICE}/`, KEY)).toBe(id);
    expect(new WebhookIds('https://books.example.com', 'deployment-key-one').idOf(SERVICE, KEY)).toBe(id);
    expect(ids.urlOf(id)).toBe(`https://books.example.com/webhooks/${id}`);
  });

  it('differs by key, by service and by deployment key, and holds nothing of the key ID', () => {
    const id = ids.idOf(SERVICE, KEY);
    expect(ids.idOf(SERVICE, `${KEY}0`)).not.toBe(id);
    expect(ids.idOf('https://other.example.com', KEY)).not.toBe(id);
    expect(new WebhookIds('https://books.example.com', 'deployment-key-two').idOf(SERVICE, KEY)).not.toBe(id);
    for (let i = 0; i + 6 <= KEY.length; i++) expect(id).not.toContain(KEY.slice(i, i + 6));
  });
});
