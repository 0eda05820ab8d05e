// The mirror's store, as the sync and the readers see it. The embedded SQLite store (src/books/sqlite/, the
// one place that holds SQL) implements it; a shared store (Postgres, for several servers) can follow.
import type { BooksEvent } from '../events/event.js';
import type { MirrorLocation } from './location.js';
import type { Rec } from './rows.js';
import type { LinesCoverage, MirroredKind, MirrorReader } from './types.js';

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
  /** The file, or null in memory. */
  readonly path: string | null;
  /** The stored records of these ids (as the service sent them). */
  stored(kind: MirroredKind, ids: readonly number[]): Promise<Map<number, Rec>>;
  /** One atomic write: records, the events their diffs made, and the kind's new mark when a read completed. */
  write(kind: MirroredKind, records: readonly Rec[], events: readonly BooksEvent[], mark?: KindMark): Promise<void>;
  setLines(invoiceId: number, stamp: string, items: unknown): Promise<void>;
  /** Invoices whose header changed since their lines were stored (or that have none), newest first. */
  linesWanted(limit: number): Promise<{ id: number; stamp: string }[]>;
  coverage(): Promise<LinesCoverage>;
  counts(): Promise<Record<MirroredKind | 'lines', number>>;
  marks(): Promise<Map<MirroredKind, KindMark>>;
  eventsAfter(seq: number): Promise<StoredEvent[]>;
  lastEventSeq(): Promise<number>;
  pruneEvents(olderThanMs: number): Promise<void>;
  takeLease(name: string, holder: string, ttlMs: number, nowMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** Asks the lease holder (another process) to read these kinds now. */
  requestSync(kinds: readonly MirroredKind[], atMs: number): Promise<void>;
  /** The kinds other processes asked for since the last call (and forgets them). */
  takeWants(): Promise<MirroredKind[]>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  location: Exclude<MirrorLocation, { kind: 'off' }>;
  /** The service and key the books belong to (see mirrorIdentity). */
  identity: string;
  warn: (message: string) => void;
}

/**
 * Opens the store. Never throws for a bad file: a file of another key, or one that cannot be opened or set
 * aside, gives a warning and a mirror in memory.
 */
export async function openMirrorStore(options: OpenStoreOptions): Promise<MirrorStore> {
  const { openDatabase } = await import('./sqlite/open.js');
  const { sqliteReader } = await import('./sqlite/reader.js');
  const { sqliteWriter } = await import('./sqlite/writer.js');
  const path = options.location.kind === 'file' ? options.location.path : null;
  let opened: Awaited<ReturnType<typeof openDatabase>>;
  try {
    opened = await openDatabase({ path }, options.identity, options.warn);
  } catch (err) {
    options.warn(`the mirror cannot use ${path} (${err instanceof Error ? err.message : String(err)}): keeping it in memory for this run`);
    opened = await openDatabase({ path: null }, options.identity, options.warn);
  }
  const { db } = opened;
  return {
    read: sqliteReader(db),
    path: opened.path,
    ...sqliteWriter(db),
    close: async () => db.close(),
  };
}
