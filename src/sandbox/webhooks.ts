// Signed webhook delivery: `X-Service-Signature: t=UNIX_SECONDS,v1=HEX`, HMAC-SHA256 of `t + "." + body`
// keyed with the endpoint's secret; any 2xx is success, otherwise up to 5 more tries with back-off
// base × 1, 2, 4, 8, 16.
import { createHmac, randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import { REAL_TIMERS } from '../core/timers.js';
import type { SandboxClock } from './clock.js';
import { randomToken } from './secrets.js';
import { formatTimestamp } from './time.js';

export const EVENT_KINDS = ['invoice.sent', 'invoice.paid', 'payment.recorded', 'quote.accepted', 'stock.low'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

const MAX_RETRIES = 5;
const TIMEOUT_MS = 10_000;

interface Endpoint {
  id: number;
  businessId: number;
  url: string;
  secret: string;
}

export interface DeliveryAttempt {
  event_id: string;
  event: EventKind;
  endpoint_id: number;
  url: string;
  attempt: number;
  status: number | null;
  error: string | null;
  at: string;
}

export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const hex = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${hex}`;
}

export class WebhookSender {
  readonly #endpoints: Endpoint[] = [];
  readonly deliveries: DeliveryAttempt[] = [];
  readonly #retries = new Set<unknown>();
  // undici loads on the first delivery: most sandboxes never send a webhook, and loading it is a third of
  // a sandbox's start.
  #undici: Promise<{ agent: Agent; dispatch: typeof import('../core/undici-core.js').dispatch }> | null = null;
  #closed = false;

  constructor(
    private readonly clock: SandboxClock,
    private readonly backoffMs: number,
  ) {}

  register(businessId: number, url: string): { id: number; secret: string } {
    const endpoint = { id: this.#endpoints.length + 1, businessId, url, secret: `whsec_${randomToken(32)}` };
    this.#endpoints.push(endpoint);
    return { id: endpoint.id, secret: endpoint.secret };
  }

  /** Sends one event to every endpoint of the business. Returns the event's id. */
  emit(businessId: number, timeZone: string, kind: EventKind, data: Record<string, unknown>): string {
    const id = `evt_${randomUUID().replaceAll('-', '')}`;
    const body = JSON.stringify({ id, event: kind, created_at: formatTimestamp(this.clock.now(), timeZone), data });
    for (const endpoint of this.#endpoints) {
      if (endpoint.businessId === businessId) void this.#deliver(endpoint, id, kind, body, 1);
    }
    return id;
  }

  async #deliver(endpoint: Endpoint, eventId: string, kind: EventKind, body: string, attempt: number): Promise<void> {
    if (this.#closed) return;
    const nowMs = this.clock.now();
    const record: DeliveryAttempt = {
      event_id: eventId,
      event: kind,
      endpoint_id: endpoint.id,
      url: endpoint.url,
      attempt,
      status: null,
      error: null,
      at: new Date(nowMs).toISOString(),
    };
    this.deliveries.push(record);
    try {
      this.#undici ??= import('../core/undici-core.js').then(({ Agent, dispatch }) => ({
        agent: new Agent({ headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS }),
        dispatch,
      }));
      const { agent, dispatch } = await this.#undici;
      const url = new URL(endpoint.url);
      const res = await dispatch(agent, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-signature': signatureHeader(endpoint.secret, Math.floor(nowMs / 1000), body),
        },
        body,
      });
      record.status = res.statusCode;
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) return;
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
    }
    if (attempt > MAX_RETRIES || this.#closed) return;
    const timer = REAL_TIMERS.set(
      () => {
        this.#retries.delete(timer);
        void this.#deliver(endpoint, eventId, kind, body, attempt + 1);
      },
      this.backoffMs * 2 ** (attempt - 1),
    );
    this.#retries.add(timer);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#retries) REAL_TIMERS.clear(t);
    this.#retries.clear();
    if (this.#undici) await (await this.#undici).agent.destroy();
  }
}
