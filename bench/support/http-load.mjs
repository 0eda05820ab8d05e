// HTTP mode under load, as clients on different addresses of this machine (127.0.0.x) see it. A hog holds
// GET streams past its share and a bystander works throughout, while in turn: many 2025-era sessions of the
// SDK's client open, work and leave (close() sends no DELETE), a burst of stateless requests arrives at once,
// and an abandoner opens sessions it never ends. Returns what each client met; the suite runs it scaled
// down (test/e2e/http-load.test.ts), `node bench/run.mjs http` at full size (bench/http-load.bench.mjs).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent } from 'undici';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';

const ADDRESSES = { sdk: '127.0.0.1', hog: '127.0.0.2', bystander: '127.0.0.3', burst: '127.0.0.4', abandoner: '127.0.0.5' };

/** A fetch from one loopback address, with as many connections as it asks for. */
function fetchFrom(address) {
  const agent = new Agent({ localAddress: address });
  const from = (url, init = {}) => fetch(url, { ...init, dispatcher: agent });
  from.close = () => agent.destroy();
  return from;
}

const initializeBody = (name) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name, version: '1' } },
  });

/** A raw `initialize`: the status ('cut' when the connection was closed without one), and the session's id. */
async function initialize(from, url, name) {
  try {
    const res = await from(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: initializeBody(name),
    });
    await res.text();
    return { status: res.status, id: res.headers.get('mcp-session-id') };
  } catch {
    return { status: 'cut', id: null };
  }
}

/** One 2025-era session of the SDK's client: connect, two calls, close (which sends no DELETE). */
async function sdkSession(from, url, name) {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: from }));
  try {
    await client.listTools();
    await client.listResourceTemplates();
  } finally {
    await client.close();
  }
}

const messageOf = (err) => `${err?.message ?? err}${err?.cause ? ` (${err.cause.message ?? err.cause.code})` : ''}`;

async function settle(promises) {
  const settled = await Promise.allSettled(promises);
  const failures = settled.filter((s) => s.status === 'rejected').map((s) => messageOf(s.reason));
  return { ok: settled.length - failures.length, failed: failures.length, reasons: [...new Set(failures)].slice(0, 5) };
}

/** A stateless 2026-07-28 tools/list. */
async function statelessCall(from, url, id) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'burst', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const res = await from(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-method': 'tools/list', 'mcp-protocol-version': MODERN },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta } }),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"result"')) throw new Error(`HTTP ${res.status} ${text.slice(0, 120)}`);
}

/** Opens `count` sessions, each with its GET stream, and holds them; counts the streams taken and refused. */
async function hogStreams(from, url, count) {
  const streams = [];
  const statuses = {};
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, async (_, j) => {
        const { status, id } = await initialize(from, url, `hog-${i + j}`);
        if (id === null) return { status: `initialize ${status}` };
        try {
          const res = await from(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LEGACY } });
          if (res.status !== 200) await res.text();
          return res;
        } catch {
          return { status: 'cut' };
        }
      }),
    );
    for (const res of batch) {
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status === 200) streams.push(res);
    }
  }
  return { statuses, release: () => Promise.allSettled(streams.map((s) => s.body.cancel())) };
}

/** A client that goes about its work the whole time: one SDK session, calls in a loop until told to stop. */
function bystander(from, url) {
  let stop = false;
  const errors = [];
  let calls = 0;
  const done = (async () => {
    const client = new Client({ name: 'bystander', version: '1' });
    // Closing aborts its GET stream, which the client reports too: only what comes before counts.
    client.onerror = (err) => stop || errors.push(`transport: ${messageOf(err)}`);
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: from }));
      while (!stop) {
        await client.listTools();
        calls++;
        await new Promise((r) => setTimeout(r, 20));
      }
      await client.close();
    } catch (err) {
      errors.push(messageOf(err));
    }
  })();
  return {
    stop: async () => {
      stop = true;
      await done;
      return { calls, errors };
    },
  };
}

/**
 * Runs the phases against `url`. sizes: { sessions, stateless, streams, abandoned }; `afterIdle` (optional)
 * waits for the session idle timeout to pass, after which the abandoner opens as many again.
 */
export async function runHttpLoad({ url, sizes, afterIdle }) {
  const from = Object.fromEntries(Object.entries(ADDRESSES).map(([who, address]) => [who, fetchFrom(address)]));
  const report = { sizes };
  const started = performance.now();
  const phase = async (name, run) => {
    const t0 = performance.now();
    report[name] = { ...(await run()), ms: Math.round(performance.now() - t0) };
  };
  try {
    const hog = await hogStreams(from.hog, url, sizes.streams);
    report.hog = hog.statuses;
    const watcher = bystander(from.bystander, url);
    await phase('sessions', () => settle(Array.from({ length: sizes.sessions }, (_, i) => sdkSession(from.sdk, url, `sdk-${i}`))));
    await phase('stateless', () => settle(Array.from({ length: sizes.stateless }, (_, i) => statelessCall(from.burst, url, i + 1))));
    await phase('abandoned', async () => {
      const statuses = {};
      for (let i = 0; i < sizes.abandoned; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, sizes.abandoned - i) }, (_, j) => initialize(from.abandoner, url, `gone-${i + j}`)),
        );
        for (const { status } of batch) statuses[status] = (statuses[status] ?? 0) + 1;
      }
      return { statuses, bystanderInitialize: (await initialize(from.bystander, url, 'bystander-2')).status };
    });
    if (afterIdle) {
      await afterIdle();
      await phase('afterIdle', async () => ({ initialize: (await initialize(from.abandoner, url, 'back')).status }));
    }
    report.bystander = await watcher.stop();
    await hog.release();
  } finally {
    await Promise.allSettled(Object.values(from).map((f) => f.close()));
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}
