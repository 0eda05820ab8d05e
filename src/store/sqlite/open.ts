// Opening the mirror's SQLite database: a file (in WAL mode so several processes can read while one writes) or
// memory. A file of another schema version is rebuilt; a damaged one (not a database, malformed, or failing
// SQLite's quick check) is set aside beside itself and rebuilt, with a warning; a file of another key or
// service is refused. Nothing else moves or changes a file: one that is locked, read-only, not ours, or in a
// folder that does not exist stays as it is, and the caller runs the mirror in memory saying why.
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { SANDBOX_IDENTITY } from '../location.js';
import { Db } from './db.js';
import { failureOf, messageOf } from './failure.js';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';

export class MirrorOfAnotherKey extends Error {
  constructor(readonly path: string) {
    super(`the mirror file ${path} holds the books of another key or service`);
    this.name = 'MirrorOfAnotherKey';
  }
}

/** The file cannot be used as it is, and is not damaged: it is left alone. */
export class MirrorFileUnusable extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`the mirror cannot use ${path} (${reason})`);
    this.name = 'MirrorFileUnusable';
  }
}

export interface OpenedDatabase {
  db: Db;
  /** Null in memory. */
  path: string | null;
}

export interface FileChoice {
  path: string;
  /** The user named this file (`--mirror PATH`): its folder is theirs to make, not ours. */
  explicit: boolean;
}

export interface Limits {
  busyTimeoutMs?: number | undefined;
  maxPages?: number | undefined;
}

const OWNER_ONLY = 0o600;

function meta(db: Db, key: string): string | null {
  if (db.value("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'") === null) return null;
  const value = db.value('SELECT value FROM meta WHERE key = ?', [key]);
  return value === null ? null : String(value);
}

function dropEverything(db: Db): void {
  const tables = db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  db.batch(tables.map(([name]) => `DROP TABLE IF EXISTS "${String(name)}"`));
}

/** Schema and identity: creates a new database, rebuilds one of another version, refuses another key's. */
function prepare(db: Db, identity: string, path: string): void {
  const version = meta(db, 'schema_version');
  const owner = meta(db, 'identity');
  const sandboxes = owner?.startsWith(SANDBOX_IDENTITY) && identity.startsWith(SANDBOX_IDENTITY);
  if (owner !== null && owner !== identity && !sandboxes) throw new MirrorOfAnotherKey(path);
  if ((version !== null && version !== String(SCHEMA_VERSION)) || (owner !== identity && sandboxes)) dropEverything(db);
  db.batch([
    ...SCHEMA,
    { sql: 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', args: ['schema_version', String(SCHEMA_VERSION)] },
    { sql: 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', args: ['identity', identity] },
  ]);
}

/** Damaged pages anywhere in the file show here, not only when a query happens to read them. */
function checkPages(db: Db): void {
  const verdict = db.rows('PRAGMA quick_check').map(([line]) => String(line));
  if (verdict.length !== 1 || verdict[0] !== 'ok') {
    throw Object.assign(new Error(`database disk image is malformed: ${verdict.slice(0, 3).join('; ')}`), { code: 'SQLITE_CORRUPT' });
  }
}

/** A new file is made owner-only; an existing one keeps the mode its owner gave it, with a word if others can read it. */
function ensureFile(choice: FileChoice, warn: (message: string) => void): void {
  const folder = dirname(choice.path);
  if (!existsSync(folder)) {
    if (choice.explicit) throw new MirrorFileUnusable(choice.path, `the folder ${folder} does not exist: make it, or name another file`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  }
  if (!existsSync(choice.path)) {
    closeSync(openSync(choice.path, 'a', OWNER_ONLY));
    return;
  }
  const mode = statSync(choice.path).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    warn(`the mirror file ${choice.path} can be read by other users (mode ${mode.toString(8)}); chmod 600 it if that is not meant`);
  }
}

function configure(db: Db, limits: Limits): void {
  db.exec(`PRAGMA busy_timeout = ${Math.trunc(limits.busyTimeoutMs ?? 10_000)}`);
  if (limits.maxPages !== undefined) db.exec(`PRAGMA max_page_count = ${Math.trunc(limits.maxPages)}`);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  // Up to 32 MiB of pages kept in memory (SQLite's default is 2 MiB): an answer re-reads the same
  // pages, and from the cache it reads them about twice as fast as from the file.
  db.exec('PRAGMA cache_size = -32768');
}

function openFile(path: string, identity: string, limits: Limits): Db {
  const db = new Db(path);
  try {
    configure(db, limits);
    checkPages(db);
    prepare(db, identity, path);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Moves a damaged file (and its WAL) aside as `<path>.corrupt-<time>`; returns the new name. */
export function setAside(path: string): string {
  const aside = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(path, aside);
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
  return aside;
}

const WHAT_TO_DO: Record<string, string> = {
  busy: 'another program holds it locked; the mirror runs in memory for this run',
  access: 'it cannot be opened or written as it is; the mirror runs in memory for this run',
  full: 'the disk is full; the mirror runs in memory for this run',
  other: 'the mirror runs in memory for this run',
};

/** Opens a file, setting it aside and rebuilding it when it is damaged; refuses when it is unusable as it is. */
export function openMirrorFile(choice: FileChoice, identity: string, warn: (message: string) => void, limits: Limits = {}): Db {
  ensureFile(choice, warn);
  try {
    return openFile(choice.path, identity, limits);
  } catch (err) {
    if (err instanceof MirrorOfAnotherKey) throw err;
    const failure = failureOf(err);
    if (failure !== 'corrupt') throw new MirrorFileUnusable(choice.path, `${messageOf(err)}: ${WHAT_TO_DO[failure]}`);
    const aside = setAside(choice.path);
    warn(`the mirror file ${choice.path} is damaged (${messageOf(err)}): set aside as ${aside} and rebuilt`);
    ensureFile(choice, warn);
    return openFile(choice.path, identity, limits);
  }
}

export function openMemory(identity: string): Db {
  const db = new Db(':memory:');
  prepare(db, identity, ':memory:');
  return db;
}

/**
 * A damaged file found while the mirror runs, at any read or write: set aside once, and the same connection
 * carries on on a new file. The call that found it fails with that reason; the next sync reads the books anew.
 */
export function rebuildWhenDamaged(db: Db, identity: string, warn: (message: string) => void, limits: Limits = {}): void {
  let rebuilding = false;
  db.onCorrupt = (cause) => {
    if (rebuilding) return;
    rebuilding = true;
    try {
      db.close();
      const aside = setAside(db.path);
      warn(`the mirror file ${db.path} is damaged (${messageOf(cause)}): set aside as ${aside}; it is rebuilt from the service`);
      db.reopen();
      configure(db, limits);
      prepare(db, identity, db.path);
    } catch (err) {
      warn(`the damaged mirror file ${db.path} could not be rebuilt (${messageOf(err)})`);
    } finally {
      rebuilding = false;
    }
  };
}
