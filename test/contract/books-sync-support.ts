// A mirror under test: a client of its own key on the sandbox, a store (memory, a file or Postgres), a bus whose
// events the test records, and the ground truth read raw from the sandbox's API.
import { isDeepStrictEqual } from 'node:util';
import type { ApiClient, ApiClientDeps, ClientOptionsInput } from '../../src/api/index.js';
import { type Mirror, type MirrorOptions, startMirror } from '../../src/books/mirror.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import { createEventBus, type EventBus } from '../../src/events/bus.js';
import type { BooksEvent } from '../../src/events/event.js';
import { OTHER_BUSINESS } from '../../src/sandbox/seed/profiles.js';
import type { MirrorLocation } from '../../src/store/location.js';
import { MIRRORED_KINDS } from '../../src/store/types.js';
import { makeClient } from '../support/client.js';
import type { LogCapture } from '../support/logs.js';
import type { KeyPair, TestSandbox } from '../support/sandbox.js';
import { type Json, listAll, signIn } from './sandbox-http.js';

export interface MirrorUnderTest {
  mirror: Mirror;
  api: ApiClient;
  bus: EventBus;
  heard: { event: BooksEvent; uris: readonly string[] }[];
  close(): Promise<void>;
}

export async function mirrorOn(
  sb: TestSandbox,
  key: KeyPair,
  logs: LogCapture,
  options: {
    path?: string;
    /** Where the store lives, when not memory or a file (`path`). */
    location?: Exclude<MirrorLocation, { kind: 'off' }>;
    client?: ClientOptionsInput;
    clientDeps?: Pick<ApiClientDeps, 'now' | 'timers'>;
    mirror?: Partial<MirrorOptions>;
    identity?: string;
  } = {},
): Promise<MirrorUnderTest> {
  const api = makeClient(sb, key, logs, options.client ?? {}, options.clientDeps ?? {});
  const heard: MirrorUnderTest['heard'] = [];
  const bus = createEventBus({ invalidate: () => undefined });
  bus.listen((event, uris) => heard.push({ event, uris }));
  const store = await openMirrorStore({
    location: options.location ?? (options.path ? { kind: 'file', path: options.path, explicit: true } : { kind: 'memory' }),
    identity: options.identity ?? `${sb.baseUrl}|${key.key_id}`,
    warn: (m) => logs.logger.warn({}, m),
  });
  const mirror = await startMirror({ api, store, bus, logger: logs.logger, pollSeconds: 0, ...options.mirror });
  return {
    mirror,
    api,
    bus,
    heard,
    async close() {
      await mirror.stop();
      await store.close();
      await api.close();
    },
  };
}

/** The small second business's day (its own time zone) at instant `at` of the sandbox's clock. */
export function smallBusinessDay(at: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: OTHER_BUSINESS.timeZone }).format(Date.parse(at));
}

/** Every record of every kind, raw from the API. */
export async function groundTruth(sb: TestSandbox, key: KeyPair): Promise<Record<string, Json[]>> {
  const session = await signIn(sb.baseUrl, key);
  const out: Record<string, Json[]> = {};
  for (const kind of MIRRORED_KINDS) out[kind] = await listAll(session, `/api/v1/${kind}`);
  return out;
}

/** The kinds whose stored records differ from the API's (count or any field), with the first difference. */
export async function differences(mirror: Mirror, truth: Record<string, Json[]>): Promise<string[]> {
  const out: string[] = [];
  const counts = await mirror.store.counts();
  for (const kind of MIRRORED_KINDS) {
    const records = truth[kind] ?? [];
    if (counts[kind] !== records.length) out.push(`${kind}: ${counts[kind]} stored, ${records.length} listed`);
    const stored = await mirror.store.stored(
      kind,
      records.map((r) => r.id),
    );
    const wrong = records.find((r) => !isDeepStrictEqual(stored.get(r.id), r));
    if (wrong)
      out.push(
        `${kind} ${wrong.id}: stored ${JSON.stringify(stored.get(wrong.id))?.slice(0, 200)} listed ${JSON.stringify(wrong).slice(0, 200)}`,
      );
  }
  return out;
}
