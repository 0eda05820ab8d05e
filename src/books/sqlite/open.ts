// Opening the mirror's SQLite database: a file (created owner-only, in WAL mode so several processes can
// read while one writes) or memory. A file of another schema version is rebuilt; a corrupt or unreadable
// one is set aside beside itself and rebuilt, with a warning; a file of another key or service is refused.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Db } from './db.js';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';

export class MirrorOfAnotherKey extends Error {
  constructor(readonly path: string) {
    super(`the mirror file ${path} holds the books of another key or service`);
    this.name = 'MirrorOfAnotherKey';
  }
}

export interface OpenedDatabase {
  db: Db;
  /** Null in memory. */
  path: string | null;
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
  if (owner !== null && owner !== identity) throw new MirrorOfAnotherKey(path);
  if (version !== null && version !== String(SCHEMA_VERSION)) dropEverything(db);
  db.batch([
    ...SCHEMA,
    { sql: 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', args: ['schema_version', String(SCHEMA_VERSION)] },
    { sql: 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', args: ['identity', identity] },
  ]);
}

function createOwnerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', OWNER_ONLY));
  if (process.platform !== 'win32') chmodSync(path, OWNER_ONLY);
}

function openFile(path: string, identity: string): Db {
  createOwnerOnly(path);
  const db = new Db(path);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // Up to 32 MiB of pages kept in memory (SQLite's default is 2 MiB): an answer re-reads the same
    // pages, and from the cache it reads them about twice as fast as from the file.
    db.exec('PRAGMA cache_size = -32768');
    prepare(db, identity, path);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Moves a damaged file (and its WAL) aside as `<path>.corrupt-<time>`; returns the new name. */
function setAside(path: string): string {
  const aside = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(path, aside);
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
  return aside;
}

export async function openDatabase(
  where: { path: string | null },
  identity: string,
  warn: (message: string) => void,
): Promise<OpenedDatabase> {
  if (where.path === null) {
    const db = new Db(':memory:');
    prepare(db, identity, ':memory:');
    return { db, path: null };
  }
  const path = where.path;
  try {
    return { db: openFile(path, identity), path };
  } catch (err) {
    if (err instanceof MirrorOfAnotherKey) throw err;
    const aside = setAside(path);
    warn(
      `the mirror file ${path} could not be read (${err instanceof Error ? err.message : String(err)}): set aside as ${aside} and rebuilt`,
    );
    return { db: openFile(path, identity), path };
  }
}
