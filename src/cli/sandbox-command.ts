// `invoicing-mcp sandbox`: runs the emulated Invoicing Service until stopped, and says how to reach it.
import { parseArgs } from 'node:util';
import type { SandboxHandle } from '../sandbox/index.js';
import { isCalendarDate } from '../sandbox/time.js';

export const SANDBOX_USAGE = `usage: invoicing-mcp sandbox [--port N] [--host H] [--json] [--scale N] [--rate-limit CALLS]
                             [--rate-window SECONDS] [--sign-in-limit N] [--admin-token T]
                             [--today YYYY-MM-DD] [--businesses N]`;

export class UsageError extends Error {}

interface SandboxArgs {
  port: number;
  host: string;
  json: boolean;
  scale: number;
  rateLimit: number;
  rateWindowSeconds: number;
  signInLimit: number;
  adminToken: string | undefined;
  today: string | undefined;
  businesses: number;
}

function positiveInt(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min) throw new UsageError(`--${name} must be a whole number of at least ${min}, not "${raw}"`);
  return Number(raw);
}

function readToday(raw: string | undefined): string | undefined {
  if (raw !== undefined && !isCalendarDate(raw)) throw new UsageError(`--today must be a calendar date written YYYY-MM-DD, not "${raw}"`);
  return raw;
}

export function parseSandboxArgs(argv: string[]): SandboxArgs {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      json: { type: 'boolean' },
      scale: { type: 'string' },
      'rate-limit': { type: 'string' },
      'rate-window': { type: 'string' },
      'sign-in-limit': { type: 'string' },
      'admin-token': { type: 'string' },
      today: { type: 'string' },
      businesses: { type: 'string' },
    },
  });
  const port = positiveInt('port', values.port, 8787, 0);
  if (port > 65535) throw new UsageError('--port must be at most 65535');
  return {
    port,
    host: values.host ?? '127.0.0.1',
    json: values.json ?? false,
    scale: positiveInt('scale', values.scale, 1),
    rateLimit: positiveInt('rate-limit', values['rate-limit'], 120),
    rateWindowSeconds: positiveInt('rate-window', values['rate-window'], 60),
    signInLimit: positiveInt('sign-in-limit', values['sign-in-limit'], 10),
    adminToken: values['admin-token'],
    today: readToday(values.today),
    businesses: positiveInt('businesses', values.businesses, 2, 2),
  };
}

export function describeSandbox(sb: SandboxHandle): string {
  const base = sb.baseUrl;
  return [
    `Invoicing Service sandbox listening on ${base}`,
    `  business day ${sb.today} (Pacific/Auckland): the sample books end the day before`,
    '',
    `  test key   SVC_KEY_ID=${sb.keys.test.key_id}`,
    `             SVC_SECRET=${sb.keys.test.secret}`,
    `  live key   SVC_KEY_ID=${sb.keys.live.key_id}`,
    `             SVC_SECRET=${sb.keys.live.secret}`,
    `  admin      Authorization: Bearer ${sb.adminToken}   (${base}/_sandbox/...)`,
    '',
    'Try it:',
    `  TOKEN=$(curl -s -u '${sb.keys.test.key_id}:${sb.keys.test.secret}' -X POST ${base}/api/v1/auth/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `  curl -s -H "Authorization: Bearer $TOKEN" -H 'X-Service-Key: ${sb.keys.test.key_id}' '${base}/api/v1/invoices?per_page=2'`,
    '',
    'The keys are new on every start. Stop with Ctrl-C.',
  ].join('\n');
}

export async function runSandboxCommand(argv: string[], out: (text: string) => void): Promise<SandboxHandle> {
  const args = parseSandboxArgs(argv);
  // Loaded here so that no other command pays for the sample books.
  const { startSandbox } = await import('../sandbox/index.js');
  const sb = await startSandbox({
    port: args.port,
    host: args.host,
    scale: args.scale,
    rateLimit: args.rateLimit,
    rateWindowSeconds: args.rateWindowSeconds,
    signInLimit: args.signInLimit,
    businesses: args.businesses,
    ...(args.adminToken ? { adminToken: args.adminToken } : {}),
    ...(args.today ? { today: args.today } : {}),
  });
  out(
    args.json ? JSON.stringify({ base_url: sb.baseUrl, admin_token: sb.adminToken, keys: sb.keys, today: sb.today }) : describeSandbox(sb),
  );
  return sb;
}
