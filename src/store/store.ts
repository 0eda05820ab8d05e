// The mirror's store, as the sync and the readers see it: types only. It is written once above the engines
// (sql-store.ts, over the engine adapter of engine.ts); each engine's folder (sqlite/, postgres/) adds its
// connection, its exact sums and how it opens; src/books/open-store.ts picks the engine.

import type { BooksEvent } from '../events/event.js';
import type { MirrorLocation } from './location.js';
import type { Rec } from './record.js';
import type { SharedConnections } from './shared-connections.js';
import type { InvoiceFilter, LinesCoverage, MirroredKind, MirrorReader, TaskTable } from './types.js';

export type { StoredTask, TaskTable } from './types.js';

/** A kind's state once its first full read is complete. */
export interface KindMark {
  /** Lists ask `updated_since` from here (less an overlap): the service's clock, ISO 8601; null = from the start. */
  watermark: string | null;
  /** The service's clock when the last complete read began, ISO 8601. */
  syncedAt: string;
  /** Our clock at that moment (ms), to skip a read just made. */
  syncedMs: number;
}

export interface StoredEvent {
  seq: number;
  event: BooksEvent;
}

export interface MirrorStore {
  readonly read: MirrorReader;
  /** Tasks of long answers, kept with the books so every process on the store answers for them. */
  readonly tasks: TaskTable;
  /** `work`'s reads as one consistent state of the books (one read transaction), whatever is written meanwhile. */
  snapshot<T>(work: (read: MirrorReader) => Promise<T>): Promise<T>;
  /** Tells every process on the store that the key's calls are held until `untilMs` (a 429 met here). */
  shareRateHold(untilMs: number): Promise<void>;
  /** Until when (epoch ms) a process on the store last said the key's calls are held; 0 when none did. */
  rateHold(): Promise<number>;
  /** Where it lives: the file, or the Postgres URL without its password; null in memory. */
  readonly path: string | null;
  /** The stored records of these ids (as the service sent them). */
  stored(kind: MirroredKind, ids: readonly number[]): Promise<Map<number, Rec>>;
  /** One atomic write: records, the events their diffs made, and the kind's new mark when a read completed. */
  write(kind: MirroredKind, records: readonly Rec[], events: readonly BooksEvent[], mark?: KindMark): Promise<void>;
  setLines(invoiceId: number, stamp: string, items: unknown): Promise<void>;
  /** Invoices whose header changed since their lines were stored (or that have none), newest first. */
  linesWanted(limit: number): Promise<{ id: number; stamp: string }[]>;
  /** Whether the invoice's lines are stored for its current header (another process may just have read them). */
  linesStored(invoiceId: number): Promise<boolean>;
  /** The same of the invoices the filter picks (an answer's range), every one: the lines an answer lacks. */
  linesMissing(filter: InvoiceFilter): Promise<{ id: number; stamp: string }[]>;
  coverage(): Promise<LinesCoverage>;
  counts(): Promise<Record<MirroredKind | 'lines', number>>;
  marks(): Promise<Map<MirroredKind, KindMark>>;
  eventsAfter(seq: number): Promise<StoredEvent[]>;
  lastEventSeq(): Promise<number>;
  pruneEvents(olderThanMs: number): Promise<void>;
  /**
   * Calls back whenever a process on the store wrote events, so they are published at once (Postgres: LISTEN).
   * Resolves to what stops it. An engine without it is looked at every second.
   */
  watchEvents?(onWritten: () => void): Promise<() => void>;
  takeLease(name: string, holder: string, ttlMs: number, nowMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Who holds the named lease now (expired or not); null when no one. */
  leaseHolder(name: string): Promise<string | null>;
  /** Asks the lease holder (another process) to read these kinds now. */
  requestSync(kinds: readonly MirroredKind[], atMs: number): Promise<void>;
  /** The kinds other processes asked for since the last call (and forgets them). */
  takeWants(): Promise<MirroredKind[]>;
  close(): Promise<void>;
}

/** What a mirror holds, read without changing it (`invoicing-mcp mirror status`), on any engine. */
export interface MirrorBooksReport {
  /** `<base URL>|<key ID>` the books belong to. */
  identity: string | null;
  schemaVersion: string | null;
  /** False when of another schema version (a server would rebuild it). */
  current: boolean;
  counts: Record<MirroredKind | 'lines', number> | null;
  coverage: LinesCoverage | null;
  marks: Map<MirroredKind, KindMark>;
}

export interface OpenStoreOptions {
  location: Exclude<MirrorLocation, { kind: 'off' }>;
  /** The service and key the books belong to (see mirrorIdentity). */
  identity: string;
  warn: (message: string) => void;
  /** How long a write waits for another process's write lock (ms); default 10 s. */
  busyTimeoutMs?: number;
  /** A ceiling on the file's size in pages, as a full disk sets one; none by default. */
  maxPages?: number;
  /** Postgres only: the schema the mirror lives in (default invoicing_mcp); hosted mode gives each tenant its own. */
  schema?: string;
  /** Connections shared with the other tenants' mirrors of this process (hosted mode: Postgres, a schema each). */
  shared?: SharedConnections;
}
