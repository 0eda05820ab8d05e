// Each tenant's webhook URL: `/webhooks/<id>` under the deployment's public origin, one per business key. The
// id is an HMAC of the service and key ID under a key of the deployment's own (kept in the vault), so it is
// the same each time the key signs in, in every process, and says nothing of the key ID to whoever sees it.
import { createHmac } from 'node:crypto';
import { mirrorIdentity } from '../../store/location.js';

export const WEBHOOKS_PREFIX = '/webhooks';
/** What an id looks like: 22 characters of base64url (128 bits). */
export const WEBHOOK_ID = /^[A-Za-z0-9_-]{22}$/;

export class WebhookIds {
  constructor(
    /** The deployment's public origin. */
    readonly origin: string,
    private readonly key: string,
  ) {}

  idOf(baseUrl: string, keyId: string): string {
    return createHmac('sha256', this.key)
      .update(`webhook\n${mirrorIdentity(baseUrl, keyId)}`)
      .digest('base64url')
      .slice(0, 22);
  }

  urlOf(id: string): string {
    return `${this.origin}${WEBHOOKS_PREFIX}/${id}`;
  }
}
