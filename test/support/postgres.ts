// The run's one Postgres (postgres-global.ts), as a test file uses it: a database of the file's own, and the
// engines a store test runs on. A Postgres that did not start fails the test with the reason, never skips it.
import pg from 'pg';
import { inject } from 'vitest';
import type { MirrorLocation } from '../../src/store/location.js';
import { awaitStatus } from './run-service.js';

let made = 0;
let ready: Promise<string> | null = null;

/** The run's Postgres, once its status file says it is up (it starts beside the first test files). */
function serverUrl(): Promise<string> {
  ready ??= (async () => {
    const provided = inject('postgres');
    if (!provided) throw new Error('this run starts no Postgres: its tests run in `npm run test:all`');
    await awaitStatus(provided.statusFile, 'Postgres');
    return provided.url;
  })();
  return ready;
}

/** A new database of this test file's (its name from `label`); its URL, password included. */
export async function postgresDatabase(label: string): Promise<string> {
  const url = new URL(await serverUrl());
  const name = `${label.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}_${process.pid}_${++made}_${Date.now() % 1_000_000}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** Leaves a database as new: the mirror's schema gone (the next store to open makes it again). */
export async function forgetMirror(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DROP SCHEMA IF EXISTS invoicing_mcp CASCADE');
  } finally {
    await client.end();
  }
}

export type EngineName = 'sqlite' | 'postgres';
/** The engines a store test runs on: Postgres too when the run started it (`npm run test:all`, not `npm test`). */
export const ENGINES: readonly EngineName[] = inject('postgres') ? ['sqlite', 'postgres'] : ['sqlite'];

/** The server's --mirror on an engine: in memory, or a new database of this file's. */
export async function mirrorSetting(engine: EngineName, label: string): Promise<string> {
  return engine === 'sqlite' ? 'memory' : postgresDatabase(label);
}

/**
 * Where a test's store lives on an engine: SQLite in memory, or this file's Postgres database made new.
 * `shared` gives the place several stores open together (SQLite: a file of the test's; Postgres: the database).
 */
export function engineStores(engine: EngineName, label: string) {
  let url: Promise<string> | null = null;
  const database = (): Promise<string> => (url ??= postgresDatabase(label));
  return {
    async fresh(): Promise<Exclude<MirrorLocation, { kind: 'off' }>> {
      if (engine === 'sqlite') return { kind: 'memory' };
      const at = await database();
      await forgetMirror(at);
      return { kind: 'postgres', url: at };
    },
    async shared(path: string): Promise<Exclude<MirrorLocation, { kind: 'off' }>> {
      if (engine === 'sqlite') return { kind: 'file', path, explicit: true };
      const at = await database();
      await forgetMirror(at);
      return { kind: 'postgres', url: at };
    },
  };
}
