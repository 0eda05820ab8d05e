// What disks do to the mirror's file: only a damaged file is moved (set aside once and rebuilt), wherever the
// damage shows, at open or at a later read; a locked, named-in-a-missing-folder or other-readable file is left
// as it is, and the reason said; a full store keeps what it holds and its answers say they are not being updated.
import { chmodSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMirror } from '../../src/books/mirror.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import { MirrorStoreFull } from '../../src/core/store-full.js';
import type { Rec } from '../../src/store/record.js';
import { Db } from '../../src/store/sqlite/db.js';
import { rebuildWhenDamaged } from '../../src/store/sqlite/open.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { mirrorOn } from './books-sync-support.js';

const dir = mkdtempSync(join(tmpdir(), 'mirror-damage-'));
const identity = 'https://books.example|svck_live_one';
const warnings: string[] = [];
const warn = (m: string): void => {
  warnings.push(m);
};
const file = (path: string) => ({ location: { kind: 'file' as const, path, explicit: true }, identity, warn });
const customers = (n: number): Rec[] =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, code: `C${i}`, name: `Customer ${i} ${'x'.repeat(300)}`, status: 'active' }));

/** Overwrites pages from the middle of the file on, leaving page 1 (the header and the schema) whole. */
function damageDataPages(path: string): void {
  const size = statSync(path).size;
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(Math.floor(size / 2), 0xa5), 0, Math.floor(size / 2), Math.floor(size / 4 / 4096) * 4096 + 4096);
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
}

function pageCount(path: string): number {
  const raw = new Database(path);
  const { page_count } = raw.prepare('PRAGMA page_count').get() as { page_count: number };
  raw.close();
  return page_count;
}

async function filled(path: string): Promise<void> {
  const store = await openMirrorStore(file(path));
  await store.write('customers', customers(400), []);
  await store.close();
  const raw = new Database(path);
  raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  raw.close();
}

beforeEach(() => {
  warnings.length = 0;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a damaged mirror file', () => {
  it('damaged in its data pages is set aside at open and rebuilt, and reads work', async () => {
    const path = join(dir, 'pages.db');
    await filled(path);
    damageDataPages(path);
    const store = await openMirrorStore(file(path));
    expect(store.path).toBe(path);
    expect(warnings.join()).toMatch(/pages\.db is damaged \(.*malformed.*\): set aside as .*pages\.db\.corrupt-/);
    expect(readdirSync(dir).filter((f) => f.startsWith('pages.db.corrupt-'))).toHaveLength(1);
    expect((await store.counts()).customers).toBe(0);
    await store.write('customers', customers(2), []);
    expect((await store.read.customers({})).length).toBe(2);
    await store.close();
  });

  it('found damaged at a later read is set aside once and rebuilt in place: that call fails, the next works', async () => {
    const path = join(dir, 'later.db');
    await filled(path);
    damageDataPages(path);
    const db = new Db(path);
    rebuildWhenDamaged(db, identity, warn);
    expect(() => db.rows('SELECT count(*), max(length(raw)) FROM customers')).toThrow(/malformed/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/later\.db is damaged .*set aside as .*later\.db\.corrupt-.*rebuilt from the service/);
    expect(db.value('SELECT count(*) FROM customers')).toBe(0);
    db.close();
  });
});

describe('a file that is not damaged', () => {
  it('held locked by another program is neither moved nor deleted: the mirror runs in memory, saying why', async () => {
    const path = join(dir, 'locked.db');
    await filled(path);
    const holder = new Database(path);
    holder.exec('PRAGMA journal_mode = WAL');
    holder.exec('BEGIN IMMEDIATE');
    holder.exec("INSERT INTO meta (key, value) VALUES ('held', 'yes')");
    try {
      const store = await openMirrorStore({ ...file(path), busyTimeoutMs: 50 });
      expect(store.path).toBeNull();
      expect(warnings.join()).toMatch(/cannot use .*locked\.db \(database is locked: another program holds it locked/);
      expect(warnings.join()).not.toMatch(/set aside/);
      await store.close();
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('locked.db.corrupt-'))).toEqual([]);
    const again = await openMirrorStore(file(path));
    expect((await again.counts()).customers).toBe(400);
    await again.close();
  });

  it('named in a folder that does not exist: the folder is not made, and the warning names it', async () => {
    const path = join(dir, 'no-such-folder', 'books.db');
    const store = await openMirrorStore(file(path));
    expect(store.path).toBeNull();
    expect(warnings.join()).toMatch(/the folder .*no-such-folder does not exist: make it, or name another file/);
    expect(existsSync(join(dir, 'no-such-folder'))).toBe(false);
    await store.close();
  });

  it.each([0o644, 0o444])('keeps the mode its owner gave it (%o), with a word when others can read it', async (mode) => {
    const path = join(dir, `mode-${mode.toString(8)}.db`);
    await filled(path);
    chmodSync(path, mode);
    const store = await openMirrorStore(file(path));
    expect(statSync(path).mode & 0o777).toBe(mode);
    expect(warnings.join()).toMatch(/can be read by other users \(mode \d+\); chmod 600 it/);
    await store.close();
  });
});

describe('a full store', () => {
  it('fails a write for space with that reason, keeping what it held', async () => {
    const path = join(dir, 'full.db');
    await filled(path);
    const pages = pageCount(path);
    const store = await openMirrorStore({ ...file(path), maxPages: pages });
    const more = customers(800).slice(400);
    await expect(store.write('customers', more, [])).rejects.toBeInstanceOf(MirrorStoreFull);
    await expect(store.write('customers', more, [])).rejects.toThrow(/no space for new records \(database or disk is full\)/);
    expect((await store.counts()).customers).toBe(400);
    await store.close();
  });

  describe('under a mirror', () => {
    let sb: TestSandbox;
    beforeAll(async () => {
      sb = await startTestSandbox();
    });
    afterAll(() => sb?.close());

    it('answers from what it holds, as of its last read, saying it is not being updated', async () => {
      const logs = captureLogs();
      const path = join(dir, 'full-mirror.db');
      const first = await mirrorOn(sb, sb.keys.live, logs, { path, identity });
      const before = await first.mirror.books.ensureFresh(['customers']);
      await first.close();
      const pages = pageCount(path);
      await sb.advanceClock(60);
      const api = makeClient(sb, sb.keys.live, logs);
      for (let i = 0; i < 30; i++) await api.customers.create({ name: `Full disk ${i} ${'y'.repeat(150)}` });
      const store = await openMirrorStore({ location: { kind: 'file', path, explicit: true }, identity, warn, maxPages: pages });
      const mirror = await startMirror({ api, store, bus: null, logger: logs.logger, pollSeconds: 0, freshMs: 0 });
      try {
        const after = await mirror.books.ensureFresh(['customers']);
        expect(after.asOf).toBe(before.asOf);
        expect(after.warning).toMatch(/no space for new records .*not being updated, so this answer is as of /);
      } finally {
        await mirror.stop();
        await store.close();
        await api.close();
      }
    });
  });
});
