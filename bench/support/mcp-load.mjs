// A closed-loop load generator for MCP over Streamable HTTP: N clients, each sending its next request as
// soon as the last is answered, for a fixed time. Requests are pre-shaped JSON-RPC (the same bytes the
// v2 client sends), so the generator spends little CPU of the two cores it shares with the servers.
//   - stateless: the 2026-07-28 protocol, each request carrying its own _meta envelope and headers;
//   - session:   the 2025-11-25 protocol, each client opening its own session with `initialize` first.
import { Pool } from 'undici';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const CLIENT_INFO = { name: 'bench', version: '1.0.0' };
const ACCEPT = 'application/json, text/event-stream';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function modernRequest(id, method, params, name) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return {
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-method': method,
      'mcp-protocol-version': MODERN,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }),
  };
}

async function post(pool, path, headers, body) {
  const res = await pool.request({ method: 'POST', path, headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

function check(answer, what) {
  if (answer.status !== 200 || !answer.text.includes('"result"') || answer.text.includes('"isError":true')) {
    throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
  }
}

/** A 2025-era session of one client: initialize, then initialized; returns the headers its requests carry. */
async function openSession(pool, path) {
  const init = await post(
    pool,
    path,
    { 'content-type': 'application/json', accept: ACCEPT },
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO },
    }),
  );
  check(init, 'initialize');
  const headers = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-session-id': init.headers['mcp-session-id'],
    'mcp-protocol-version': LEGACY,
  };
  const done = await post(pool, path, headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  if (done.status !== 202) throw new Error(`initialized: HTTP ${done.status}`);
  return headers;
}

async function closeSession(pool, path, headers) {
  const res = await pool.request({ method: 'DELETE', path, headers });
  await res.body.text();
}

/**
 * Runs `clients` closed loops against `url` for `ms` milliseconds (or until `calls` were made). `next()` gives each request's
 * method, params and tool name. Returns calls per second and latency percentiles (ms); any failed
 * call throws, since a ratio over failures would flatter whichever side failed.
 */
export async function runLoad({ url, mode, clients, ms, next, calls = Infinity }) {
  const { origin, pathname: path } = new URL(url);
  const pool = new Pool(origin, { connections: clients, pipelining: 1 });
  const latencies = [];
  try {
    const sessions = mode === 'session' ? await Promise.all(Array.from({ length: clients }, () => openSession(pool, path))) : [];
    let seq = 1;
    let issued = 0;
    const deadline = performance.now() + ms;
    const started = performance.now();
    const loop = async (client) => {
      while (performance.now() < deadline && issued++ < calls) {
        const { method, params, name } = next();
        const id = seq++;
        const shaped =
          mode === 'session'
            ? { headers: sessions[client], body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) }
            : modernRequest(id, method, params, name);
        const t0 = performance.now();
        const answer = await post(pool, path, shaped.headers, shaped.body);
        latencies.push(performance.now() - t0);
        check(answer, `${method} ${name ?? ''}`);
      }
    };
    await Promise.all(Array.from({ length: clients }, (_, c) => loop(c)));
    const elapsed = performance.now() - started;
    await Promise.all(sessions.map((headers) => closeSession(pool, path, headers)));
    latencies.sort((a, b) => a - b);
    return {
      rps: (latencies.length * 1000) / elapsed,
      calls: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    await pool.close();
  }
}
