// The sandbox for the client's contract tests: started in-process on an ephemeral port, driven through
// its admin interface (/_sandbox) over real HTTP, closed after the file.
import { request } from 'undici';
import { type KeyPair, type SandboxHandle, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';

export type { KeyPair };

export const ALL_SCOPES = [
  'customers.read',
  'invoices.read',
  'quotes.read',
  'payments.read',
  'products.read',
  'customers.write',
  'invoices.write',
] as const;

export interface SignInEntry {
  at: string;
  key_id: string | null;
  ip: string;
  status: number;
  error: string | null;
}

export interface RequestEntry {
  at: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  key_id: string | null;
  error: string | null;
}

export interface TestSandbox {
  baseUrl: string;
  adminToken: string;
  keys: { test: KeyPair; live: KeyPair };
  /** The business day the sandbox started on (pinned with `today`, else today in Auckland). */
  today: string;
  /** Every secret the sandbox handed out through this helper (for the log scan). */
  secrets: string[];
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  makeKey(mode: 'live' | 'test', scopes?: readonly string[], businessId?: number): Promise<KeyPair>;
  regenerate(keyId: string): Promise<KeyPair>;
  suspend(keyId: string): Promise<void>;
  resume(keyId: string): Promise<void>;
  endSessions(keyId?: string): Promise<number>;
  setPlan(apiAccess: boolean): Promise<void>;
  faults(rate: number, kinds: string[], latencyMs?: number): Promise<void>;
  clearFaults(): Promise<void>;
  advanceClock(seconds: number): Promise<void>;
  /** Moves the clock to the same time of day `days` dates later; time moves statuses on the way. */
  advanceDays(days: number): Promise<{ now: string; today: string }>;
  clock(): Promise<{ now: string; today: string }>;
  signIns(keyId?: string): Promise<SignInEntry[]>;
  requests(keyId?: string): Promise<RequestEntry[]>;
  /** The SHA-256 (base64) of every session token the sandbox issued and still remembers. */
  sessionTokenHashes(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sb: SandboxHandle = await startSandbox({ port: 0, signInLimit: 1000, ...options });
  const secrets = [sb.keys.test.secret, sb.keys.live.secret, sb.adminToken];

  async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { authorization: `Bearer ${sb.adminToken}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${sb.baseUrl}/_sandbox${path}`, {
      method: method as 'GET',
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
  }

  async function ok(method: string, path: string, body?: unknown): Promise<any> {
    const reply = await admin(method, path, body);
    if (reply.status >= 300) throw new Error(`admin ${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  }

  const keep = (key: KeyPair): KeyPair => {
    secrets.push(key.secret);
    return { key_id: key.key_id, secret: key.secret };
  };

  return {
    baseUrl: sb.baseUrl,
    adminToken: sb.adminToken,
    keys: sb.keys,
    today: sb.today,
    secrets,
    admin,
    makeKey: async (mode, scopes = [...ALL_SCOPES], businessId = 1) =>
      keep(await ok('POST', '/keys', { mode, scopes, business_id: businessId })),
    regenerate: async (keyId) => keep(await ok('POST', `/keys/${keyId}/regenerate`)),
    suspend: async (keyId) => void (await ok('POST', `/keys/${keyId}/suspend`)),
    resume: async (keyId) => void (await ok('POST', `/keys/${keyId}/resume`)),
    endSessions: async (keyId) => (await ok('POST', '/sessions/end', keyId === undefined ? {} : { key_id: keyId })).ended,
    setPlan: async (apiAccess) => void (await ok('PUT', '/plan', { api_access: apiAccess })),
    faults: async (rate, kinds, latencyMs) =>
      void (await ok('PUT', '/faults', { rate, kinds, ...(latencyMs === undefined ? {} : { latency_ms: latencyMs }) })),
    clearFaults: async () => void (await ok('DELETE', '/faults')),
    advanceClock: async (seconds) => void (await ok('POST', '/clock', { advance_seconds: seconds })),
    advanceDays: (days) => ok('POST', '/clock', { advance_days: days }),
    clock: () => ok('GET', '/clock'),
    signIns: async (keyId) => {
      const all: SignInEntry[] = (await ok('GET', '/logs?kind=signins')).data;
      return keyId === undefined ? all : all.filter((e) => e.key_id === keyId);
    },
    requests: async (keyId) => {
      const all: RequestEntry[] = (await ok('GET', '/logs?kind=requests')).data;
      return keyId === undefined ? all : all.filter((e) => e.key_id === keyId);
    },
    sessionTokenHashes: async () => (await ok('GET', '/sessions')).data.map((s: { token_sha256: string }) => s.token_sha256),
    close: () => sb.close(),
  };
}
