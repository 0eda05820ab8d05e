// Each invoice's lines read once in a process, whoever asks: the background and an answer asking for the same
// invoice at once make one call to the service between them, and a list taken before a read ended skips it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineReads } from '../../src/books/line-reads.js';
import { openMirrorStore } from '../../src/books/open-store.js';
import type { MirrorStore } from '../../src/store/store.js';
import { makeClient } from '../support/client.js';
import { captureLogs } from '../support/logs.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { get, signIn } from './sandbox-http.js';

let sb: TestSandbox;
let store: MirrorStore;
beforeAll(async () => {
  sb = await startTestSandbox();
  store = await openMirrorStore({ location: { kind: 'memory' }, identity: `${sb.baseUrl}|line-reads`, warn: () => undefined });
});
afterAll(async () => {
  await store?.close();
  await sb?.close();
});

describe('line reads', () => {
  it('joins a read under way, and a list taken before a read ended skips that invoice', async () => {
    const api = makeClient(sb, sb.keys.live, captureLogs('error'));
    const listed = await get(await signIn(sb.baseUrl, await sb.makeKey('live')), '/api/v1/invoices?per_page=3');
    const [a, b] = (listed.body.data as { id: number; updated_at: string }[]).map((i) => ({ id: i.id, stamp: i.updated_at }));
    const reads = new LineReads(api, store);
    const signal = new AbortController().signal;
    const calls = async (id: number): Promise<number> =>
      (await sb.requests(sb.keys.live.key_id)).filter((r) => r.method === 'GET' && r.path === `/api/v1/invoices/${id}`).length;

    const before = reads.mark();
    await Promise.all([reads.read(a!, { background: true, signal }), reads.read(a!, { background: false, signal })]);
    expect(await calls(a!.id)).toBe(1);
    expect(reads.readSince(a!.id, before)).toBe(true);
    expect(reads.readSince(b!.id, before)).toBe(false);

    const after = reads.mark();
    expect(reads.readSince(a!.id, after)).toBe(false);
    await reads.read(b!, { background: false, signal });
    expect(reads.readSince(b!.id, after)).toBe(true);
    expect(await calls(b!.id)).toBe(1);
  });
});
