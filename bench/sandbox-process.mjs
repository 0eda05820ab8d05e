// Starts the built sandbox in its own process (so the load generator never shares its event loop) and
// returns what it printed (base_url, admin_token and the keys), with its faults switch and the environment
// of a server on its live key.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const cli = new URL('../dist/bin/invoicing-mcp.mjs', import.meta.url).pathname;

export async function startSandboxProcess(args = []) {
  const child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const info = JSON.parse(line);
  return {
    ...info,
    pid: child.pid,
    /** Injects faults into every /api call (`{ rate, kinds, latency_ms }`), or, with null, stops them. */
    async setFaults(settings) {
      const res = await fetch(`${info.base_url}/_sandbox/faults`, {
        method: settings ? 'PUT' : 'DELETE',
        headers: { authorization: `Bearer ${info.admin_token}`, ...(settings ? { 'content-type': 'application/json' } : {}) },
        body: settings ? JSON.stringify(settings) : undefined,
      });
      if (res.status >= 300) throw new Error(`sandbox faults: ${res.status} ${await res.text()}`);
    },
    /** A server's environment on the live key, its mirror's file under `cacheHome` (never the user's cache). */
    serverEnv: (cacheHome) => ({
      ...process.env,
      SVC_BASE_URL: info.base_url,
      SVC_KEY_ID: info.keys.live.key_id,
      SVC_SECRET: info.keys.live.secret,
      INVOICING_MCP_LOG_LEVEL: 'warn',
      XDG_CACHE_HOME: cacheHome,
    }),
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

export async function signIn(baseUrl, key) {
  const res = await fetch(`${baseUrl}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(key),
  });
  if (res.status !== 201) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const body = await res.json();
  return { authorization: `Bearer ${body.access_token}`, 'x-service-key': key.key_id, accept: 'application/json' };
}
