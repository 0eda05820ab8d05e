// The sandbox as a library: start a faithful Invoicing Service on loopback, with sample books and keys.
import { buildApp, type SandboxTimeouts } from './app.js';
import { ALL_SCOPES } from './scopes.js';
import { randomToken } from './secrets.js';
import { MAIN_BUSINESS } from './seed/index.js';
import { isCalendarDate } from './time.js';
import { World } from './world.js';

export interface SandboxOptions {
  port?: number;
  host?: string;
  scale?: number;
  rateLimit?: number;
  rateWindowSeconds?: number;
  signInLimit?: number;
  adminToken?: string;
  webhookBackoffMs?: number;
  seed?: number;
  /**
   * The business day to start on, `YYYY-MM-DD` (the main business's zone, Pacific/Auckland): the sample
   * books end the day before and the clock starts at 09:00 that day. Absent: today, on the real clock.
   */
  today?: string;
  /** How many businesses to start with: the two sample ones, then more of their own (default 2). */
  businesses?: number;
  /** How long a client may take over its headers and its whole request (default SANDBOX_TIMEOUTS). */
  timeouts?: SandboxTimeouts;
}

export interface KeyPair {
  key_id: string;
  secret: string;
}

export interface SandboxHandle {
  baseUrl: string;
  adminToken: string;
  keys: { test: KeyPair; live: KeyPair };
  /** The day the sandbox started on, in the main business's zone. */
  today: string;
  close(): Promise<void>;
}

export const DEFAULT_SEED = 20261101;

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  if (options.today !== undefined && !isCalendarDate(options.today)) {
    throw new Error(`today must be a calendar date written YYYY-MM-DD, not "${options.today}"`);
  }
  const world = new World({
    today: options.today,
    scale: options.scale ?? 1,
    seed: options.seed ?? DEFAULT_SEED,
    rateLimit: options.rateLimit ?? 120,
    rateWindowSeconds: options.rateWindowSeconds ?? 60,
    signInLimit: options.signInLimit ?? 10,
    webhookBackoffMs: options.webhookBackoffMs ?? 1000,
    businesses: options.businesses,
  });
  const adminToken = options.adminToken ?? `sbx_admin_${randomToken(32)}`;
  const app = buildApp(world, adminToken, options.timeouts);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the sandbox did not bind a TCP port');
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  world.baseUrl = `http://${hostPart}:${address.port}`;
  const test = world.keys.create(MAIN_BUSINESS.id, 'test', ALL_SCOPES).issued;
  const live = world.keys.create(MAIN_BUSINESS.id, 'live', ALL_SCOPES).issued;
  return {
    baseUrl: world.baseUrl,
    adminToken,
    keys: { test, live },
    today: world.today(MAIN_BUSINESS.id),
    close: async () => {
      await world.webhooks.close();
      await app.close();
    },
  };
}
