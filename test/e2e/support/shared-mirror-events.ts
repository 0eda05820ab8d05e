// What several server processes on one mirror announce, watched from outside: a relay of the sandbox's
// webhook deliveries that the test points at one process, or at none; the events feed of a process counted
// for one change; and the waits for a state (every subscriber has heard, every delivery was taken).
import { createServer } from 'node:http';
import { Agent } from 'undici';
import type { KeyPair, TestSandbox } from '../../support/sandbox.js';
import type { Watcher } from './mcp-watchers.js';
import { untilRounds } from './poll-rounds.js';

/** A change's event as the feeds name it. */
export interface Change {
  kind: string;
  record: string;
}

/** A relay of the sandbox's webhook deliveries, sent on to the server named by `to`, or dropped. */
export interface Relay {
  port: number;
  /** Where the relay sends the next deliveries: a server's /webhooks, or null to drop them. */
  to: string | null;
  forwarded: string[];
  close(): Promise<void>;
}

export async function startRelay(): Promise<Relay> {
  // The relay's connections to the servers, closed before they are stopped (a kept-alive one would hold them up).
  const toServers = new Agent();
  const relay: Relay = { port: 0, to: null, forwarded: [], close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const to = relay.to;
      if (to === null) {
        res.writeHead(204).end();
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => name === 'content-type' || name.startsWith('x-service')),
      ) as Record<string, string>;
      const answer = await fetch(to, { method: 'POST', headers, body: Buffer.concat(chunks), dispatcher: toServers } as RequestInit);
      relay.forwarded.push(`${to} ${answer.status}`);
      res.writeHead(answer.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.port = (server.address() as { port: number }).port;
  relay.close = async () => {
    await toServers.close();
    await new Promise((resolve) => server.close(resolve));
  };
  return relay;
}

/** How many events each feed holds for this change (its kind and record). */
export async function heard(watcher: Watcher, change: Change): Promise<number> {
  const feed = await watcher.readJson('invoicing://events');
  return (feed.events as { event: string; resource: string }[]).filter((e) => e.event === change.kind && e.resource === change.record)
    .length;
}

export async function untilAllHeard(watchers: Watcher[], changes: Change[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const counts = await Promise.all(watchers.flatMap((w) => changes.map((c) => heard(w, c))));
    if (counts.every((n) => n >= 1) || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once every webhook delivery the sandbox attempted has been answered with a 2xx: none is retried later. */
export async function deliveriesSettled(sb: TestSandbox): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const attempts = (await sb.admin('GET', '/deliveries')).body.data as { event_id: string; status: number | null }[];
    const done = new Set(attempts.filter((a) => a.status !== null && a.status < 300).map((a) => a.event_id));
    if (attempts.every((a) => done.has(a.event_id)) || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Each step's changes made with the relay pointed where the step says, each waited for until every watcher heard it. */
export async function makeChanges(
  relay: Relay,
  watchers: Watcher[],
  steps: readonly (readonly [string | null, () => Promise<Change[]>])[],
): Promise<Change[]> {
  const changes: Change[] = [];
  for (const [to, step] of steps) {
    relay.to = to;
    const made = await step();
    changes.push(...made);
    await untilAllHeard(watchers, made);
  }
  return changes;
}

/**
 * Late repeats would come from a webhook tried again, from the next polls (the syncing process reads every change
 * again), or from another process's next look at the store's events: waits for all three to pass.
 */
export async function lateRepeatsPassed(sb: TestSandbox, keyId: string, kinds: readonly string[], lookMs: number): Promise<void> {
  const lastChange = Date.now();
  await deliveriesSettled(sb);
  await untilRounds(
    sb,
    keyId,
    kinds.map((k) => `/api/v1/${k}`),
    2,
    lastChange,
  );
  await new Promise((r) => setTimeout(r, lookMs));
}

/**
 * Registers the relay as the business's webhook endpoint and gives the environment of a server on `key` that
 * hears its deliveries (the endpoint's signing secret) and polls every `pollMs`.
 */
export async function webhookServerEnv(
  sb: TestSandbox,
  relay: Relay,
  key: KeyPair,
  businessId: number,
  pollMs: number,
): Promise<Record<string, string>> {
  const endpoint = await sb.admin('POST', '/webhooks', { url: `http://127.0.0.1:${relay.port}/webhooks`, business_id: businessId });
  if (endpoint.status !== 201) throw new Error(`webhook endpoint not registered: ${endpoint.status}`);
  return {
    SVC_BASE_URL: sb.baseUrl,
    SVC_KEY_ID: key.key_id,
    SVC_SECRET: key.secret,
    SVC_WEBHOOK_SECRET: endpoint.body.secret as string,
    SVC_POLL_MS: String(pollMs),
  };
}
