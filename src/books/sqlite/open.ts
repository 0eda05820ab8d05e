// Opening the mirror's SQLite database: a file (created owner-only, in WAL mode so several processes can
// read while one writes) or memory. A file of another schema version is rebuilt; a corrupt or unreadable
// one is set aside beside itself and rebuilt, with a warning; a file of another key or service is refused.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Client } from '@libsql/client';
import { SCHEMA, SCHEMA_VERSION } from './schema.js';

export class MirrorOfAnotherKey extends Error {
  constructor(readonly path: string) {
    super(`the mirror file ${path} holds the books of another key or service`);
    this.name = 'MirrorOfAnotherKey';
  }
}

export interface OpenedDatabase {
  db: Client;
  /** Null in memory. */
  path: string | null;
}

const OWNER_ONLY = 0o600;

async function createClient(url: string): Promise<Client> {
  const { createClient: create } = await import('@libsql/client');
  return create({ url, intMode: 'number' });
}

async function meta(db: Client, key: string): Promise<string | null> {
  const exists = await db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (exists.rows.length === 0) return null;
  const r = await db.execute({ sql: 'SELECT value FROM meta WHERE key = ?', args: [key] });
  return r.rows.length > 0 ? String(r.rows[0]?.['value']) : null;
}

async function dropEverything(db: Client): Promise<void> {
  const tables = await db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  await db.batch(tables.rows.map((t) => `DROP TABLE IF EXISTS "${String(t['name'])}"`), 'write');
}

/** Schema and identity: creates a new database, rebuilds one of another version, refuses another key's. */
async function prepare(db: Client, identity: string, path: string): Promise<void> {
  const version = await meta(db, 'schema_version');
  const owner = await meta(db, 'identity');
  if (owner !== null && owner !== identity) throw new MirrorOfAnotherKey(path);
  if (version !== null && version !== String(SCHEMA_VERSION)) await dropEverything(db);
  await db.batch(
    [
      ...SCHEMA,
      { sql: 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', args: ['schema_version', String(SCHEMA_VERSION)] },
      { sql: 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', args: ['identity', identity] },
    ],
    'write',
  );
}

function createOwnerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', OWNER_ONLY));
  if (process.platform !== 'win32') chmodSync(path, OWNER_ONLY);
}

async function openFile(path: string, identity: string): Promise<Client> {
  createOwnerOnly(path);
  const db = await createClient(`file:${path}`);
  try {
    await db.execute('PRAGMA busy_timeout = 10000');
    await db.execute('PRAGMA journal_mode = WAL');
    await db.execute('PRAGMA synchronous = NORMAL');
    await prepare(db, identity, path);
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

export async function openDatabase(where: { path: string | null }, identity: string, warn: (message: string) => void): Promise<OpenedDatabase> {
  if (where.path === null) {
    const db = await createClient(':memory:');
    await prepare(db, identity, ':memory:');
    return { db, path: null };
  }
  const path = where.path;
  try {
    return { db: await openFile(path, identity), path };
  } catch (err) {
    if (err instanceof MirrorOfAnotherKey) throw err;
    const aside = setAside(path);
    warn(`the mirror file ${path} could not be read (${err instanceof Error ? err.message : String(err)}): set aside as ${aside} and rebuilt`);
    return { db: await openFile(path, identity), path };
  }
}
