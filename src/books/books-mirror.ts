// The server's books mirror, by the --mirror setting: on a file or in memory it holds every kind, fetches
// lines and syncs in the background (on the embedded sandbox only once something first reads it); `off`
// hands the tools no mirror, and keeps only what subscriptions need (the four kinds with events, in
// memory, no lines) when polling is on. Opened once the server has answered its first requests
// (cli/when-quiet.ts), or earlier when a tool first asks (on the embedded sandbox, only then): the
// tools see a Books that waits for it, and the banner's line says only what is known before it opens.

import type { ApiClient } from '../api/client.js';
import { RefusedQuestion } from '../core/refused.js';
import { within } from '../core/timers.js';
import { isUnreachable } from '../core/unreachable.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../log/logger.js';
import { type MirrorLocation, mirrorIdentity, redactedUrl, resolveMirrorLocation, SANDBOX_IDENTITY } from '../store/location.js';
import type { OpenStoreOptions } from '../store/store.js';
import type { Books, MirroredKind } from '../store/types.js';
import { booksThrough } from './books-through.js';
import type { Mirror } from './mirror.js';

export interface BooksMirror {
  /** What the tools hold; null with `--mirror off`. */
  readonly books: Books | null;
  /** True when background reads feed the bus (subscriptions can be offered). */
  readonly syncing: boolean;
  readonly location: MirrorLocation;
  /** The banner's line, true before the store is opened. */
  readonly line: string;
  /**
   * Whether `start` opens the store: something feeds the bus, off the embedded sandbox. Otherwise it does
   * nothing, and a tool's first question opens it.
   */
  readonly opensAtStart: boolean;
  /** Opens the store and starts the sync when something feeds the bus; otherwise a tool's first question does. */
  start(): Promise<void>;
  /** For /readyz: the mirror's state, whether its store answers, and whether this process holds the sync lease. */
  readiness(): Promise<MirrorReadiness>;
  close(): Promise<void>;
}

/** For /readyz: `ready` false makes it answer 503; the detail is states only (no path, key or secret). */
export interface MirrorReadiness {
  ready: boolean;
  detail: Record<string, unknown>;
}

/** The longest gap between background syncs unless SVC_POLL_SECONDS says otherwise (and always on the sandbox). */
export const DEFAULT_POLL_SECONDS = 60;

/** What the mirror needs of a connection to the service: hosted mode's tenants have one of their own. */
export interface MirrorConnection {
  api: ApiClient;
  /** Set when running on the embedded sandbox. */
  sandbox: object | null;
  /** The service settings read from the environment; null on the embedded sandbox. */
  config: { pollSeconds: number } | null;
}

/** How long /readyz waits for the store to answer. */
const STORE_PROBE_MS = 2_000;

const EVENT_KINDS: readonly MirroredKind[] = ['invoices', 'payments', 'quotes', 'products'];

/**
 * Opens the store, telling a store engine that cannot load on this system (its native module is missing or
 * built for another platform) from any other failure: the server then runs on without the mirror, and every
 * answer says why, once the question is asked.
 */
async function withEngine<T>(location: MirrorLocation, openStore: () => Promise<T>): Promise<T> {
  try {
    return await openStore();
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_DLOPEN_FAILED') throw err;
    const reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
    throw new RefusedQuestion(
      `The books mirror cannot load on this system (its ${location.kind === 'postgres' ? 'Postgres driver' : "SQLite engine's native module"}: ${reason}), so answers are not available: the list_* and get_* tools read the service directly.`,
    );
  }
}

/** What the setting and the connection decide before anything opens. */
interface Plan {
  location: MirrorLocation;
  /** On the embedded sandbox. */
  sandbox: boolean;
  off: boolean;
  syncing: boolean;
  openAtStart: boolean;
  pollSeconds: number;
}

function planOf(setting: string | null, connection: MirrorConnection, eventsLive: boolean, env?: Record<string, string | undefined>): Plan {
  const { api } = connection;
  const sandbox = connection.sandbox !== null;
  const location = resolveMirrorLocation({
    setting,
    sandbox,
    baseUrl: api.baseUrl,
    keyId: api.keyId,
    ...(env ? { env, ...(env.HOME ? { home: env.HOME } : {}) } : {}),
  });
  const pollSeconds = connection.config?.pollSeconds ?? 0;
  const off = location.kind === 'off';
  const syncing = !sandbox && pollSeconds > 0;
  const openAtStart = !sandbox && !(off && !syncing) && eventsLive;
  return { location, sandbox, off, syncing, openAtStart, pollSeconds };
}

/** The store opened (its engine loaded only now) and the mirror started on it. */
async function openMirror(
  { location, sandbox, off, pollSeconds }: Plan,
  { api }: MirrorConnection,
  bus: EventBus,
  logger: Logger,
  { schema, shared }: Pick<OpenStoreOptions, 'schema' | 'shared'>,
): Promise<Mirror> {
  const [{ openMirrorStore }, { startMirror }] = await Promise.all([import('./open-store.js'), import('./mirror.js')]);
  const store = await withEngine(location, () =>
    openMirrorStore({
      location: location.kind === 'off' ? { kind: 'memory' } : location,
      // The embedded sandbox makes new keys (and books) at each start: its file is rebuilt, never refused.
      identity: `${sandbox ? SANDBOX_IDENTITY : ''}${mirrorIdentity(api.baseUrl, api.keyId)}`,
      warn: (message) => logger.warn({}, message),
      ...(schema === undefined ? {} : { schema }),
      ...(shared === undefined ? {} : { shared }),
    }),
  );
  return startMirror({
    api,
    store,
    bus,
    logger,
    pollSeconds: sandbox ? DEFAULT_POLL_SECONDS : pollSeconds,
    rounds: sandbox ? 'on-first-use' : 'now',
    ...(off ? { kinds: EVENT_KINDS, lines: false } : {}),
  });
}

/** The store answers a small read within the time a health check allows. */
async function storeAnswers(m: Mirror): Promise<boolean> {
  return within(
    m.store.lastEventSeq().then(() => true),
    STORE_PROBE_MS,
    false,
  ).catch(() => false);
}

/** Where opening the mirror stands: open, under way, or failed for good. */
interface Opened {
  mirror: Mirror | null;
  opening: Promise<Mirror> | null;
  failed: boolean;
}

async function readinessOf({ location, off, syncing }: Plan, { mirror, opening, failed }: Opened): Promise<MirrorReadiness> {
  if (off && !syncing) return { ready: true, detail: { mirror: { state: 'off' } } };
  // The server serves without a mirror that could not be opened: tools read the service directly.
  if (!mirror) return { ready: true, detail: { mirror: { state: failed ? 'unavailable' : opening ? 'opening' : 'not opened' } } };
  // A server of a shared Postgres mirror that could not use it keeps its books in memory, alone: it would
  // sync on its own and miss the others' webhooks, so a load balancer should send it nothing.
  if (location.kind === 'postgres' && mirror.store.path === null) {
    return { ready: false, detail: { mirror: { state: 'open', store: 'in memory: the Postgres database could not be used at start' } } };
  }
  const reachable = await storeAnswers(mirror);
  const state = { state: 'open', store: reachable ? 'reachable' : 'unreachable', syncLease: mirror.stats().holder };
  return { ready: reachable, detail: { mirror: state } };
}

function bannerLine({ location, sandbox, off, syncing, openAtStart, pollSeconds }: Plan): string {
  if (off && !syncing) return 'Mirror: off (--mirror off); no background calls.';
  const kept = location.kind === 'file' ? location.path : location.kind === 'postgres' ? `Postgres ${redactedUrl(location.url)}` : null;
  if (sandbox && kept !== null) {
    return `Mirror: ${kept}, read from the sandbox when a tool first asks; rebuilt at each start, since the sandbox's books are new each time (--mirror off turns it off).`;
  }
  if (sandbox) return 'Mirror: in memory, read from the sandbox when a tool first asks (--mirror off turns it off).';
  if (off) return `Mirror: off (--mirror off); changes are still read every ${pollSeconds} s for subscriptions.`;
  const where =
    location.kind === 'file'
      ? `${kept} (opened ${openAtStart ? 'after the first answers' : 'when a tool first reads it'}; in memory instead if the file cannot be used)`
      : location.kind === 'postgres'
        ? `${kept} (shared by every server on it; in memory instead if it cannot be used)`
        : 'memory';
  const how = syncing
    ? `synced in the background at least every ${pollSeconds} s within a share of the rate limit`
    : 'synced when a tool reads it';
  return `Mirror: ${where}, ${how} (--mirror off turns it off).`;
}

/**
 * `eventsLive`: something feeds the bus (background rounds or webhooks), so the store opens once the first
 * requests are answered; otherwise it waits for a tool's first question (nothing else would use it).
 */
export function planBooksMirror(
  setting: string | null,
  connection: MirrorConnection,
  bus: EventBus,
  loadLogger: () => Promise<Logger>,
  {
    eventsLive,
    schema,
    shared,
    env,
  }: {
    eventsLive: boolean;
    /** The environment the default mirror file's folder comes from (XDG_CACHE_HOME, HOME); the process's if not given. */
    env?: Record<string, string | undefined>;
  } & Pick<OpenStoreOptions, 'schema' | 'shared'>,
): BooksMirror {
  const plan = planOf(setting, connection, eventsLive, env);
  const opened: Opened = { mirror: null, opening: null, failed: false };
  const open = (): Promise<Mirror> =>
    (opened.opening ??= (async () => {
      opened.mirror = await openMirror(plan, connection, bus, await loadLogger(), { schema, shared });
      return opened.mirror;
    })().catch((err: unknown) => {
      // A database down for now: the next use opens it again.
      if (isUnreachable(err)) opened.opening = null;
      else opened.failed = true;
      throw err;
    }));

  return {
    books: plan.off ? null : booksThrough(async () => (await open()).books, { stays: true }),
    syncing: plan.syncing,
    opensAtStart: plan.openAtStart,
    location: plan.location,
    line: bannerLine(plan),
    // On the embedded sandbox, or when nothing feeds the bus, nothing is read until a tool asks: the store
    // opens then (a server that answers no question loads no engine).
    start: async () => {
      if (plan.openAtStart) await open();
    },
    readiness: () => readinessOf(plan, opened),
    async close() {
      await opened.opening?.catch(() => undefined);
      if (!opened.mirror) return;
      await opened.mirror.stop();
      await opened.mirror.store.close();
    },
  };
}
