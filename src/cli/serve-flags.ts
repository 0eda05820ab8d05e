// The MCP server's own settings: flags first, then an environment variable for each, then defaults.
// Pure: reads the argv and env it is given, writes nothing.
import { parseArgs } from 'node:util';
import { TOOLSETS, type Toolset } from '../../tools/define.js';
import { isLoopbackHost } from '../core/loopback.js';
import { proxyEntryProblem } from '../http/client-address.js';
import type { HttpLimits, SessionLimits } from '../http/limits.js';
import { type LogLevel, logLevelProblem, toLogLevel } from '../log/levels.js';
import { HTTP_LIMIT_FLAGS, HTTP_LIMITS_USAGE, readHttpLimits } from './http-limit-flags.js';
import { RETRY_BUDGET_FLAG, RETRY_BUDGET_USAGE, readRetryBudget } from './retry-budget-flag.js';
import { ConfigError } from './service-env.js';

export interface ServeOptions {
  readonly transport: 'stdio' | 'http';
  readonly host: string;
  readonly port: number;
  /** Bearer token HTTP clients must send; required when binding beyond loopback. */
  readonly httpToken: string | null;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  /** Proxies (addresses or ranges) whose X-Forwarded-For names the client; none: the socket's address counts. */
  readonly trustProxy: readonly string[];
  readonly readOnly: boolean;
  readonly toolsets: readonly Toolset[] | null;
  readonly confirmWrites: boolean;
  readonly logLevel: LogLevel;
  /** stdio mode: a listener for the service's webhooks at /webhooks on this port; null = none. */
  readonly webhookPort: number | null;
  readonly webhookHost: string;
  /** Timeouts and connection cap of every HTTP listener (/mcp and the webhook receiver). */
  readonly limits: HttpLimits;
  /** 2025-era HTTP sessions open at most. */
  readonly maxSessions: number;
  /** Per-client shares of sessions and streams, the session idle timeout, the stream lifetime. */
  readonly sessionLimits: SessionLimits;
  /** How long SIGTERM waits for the HTTP calls in flight (ms). */
  readonly drainTimeoutMs: number;
  /** The books mirror: a file path, a Postgres URL, `memory` or `off`; null = the default (see src/store/location.ts). */
  readonly mirror: string | null;
  /** `--businesses` / INVOICING_MCP_BUSINESSES: the list of businesses (a file's path, or the JSON itself); null = SVC_*. */
  readonly businesses: string | null;
  /** Service calls in flight at most; null follows the key's budget (the service's stated limit). */
  readonly maxConcurrency: number | null;
  /** How long one service call keeps retrying (ms); null = the client's default. */
  readonly retryBudgetMs: number | null;
  /** Hosted mode (`--hosted`, which implies --http): many businesses signing in with OAuth (see hosted-config.ts). */
  readonly hosted: boolean;
  /** Hosted mode: the canonical URL of /mcp. */
  readonly publicUrl: string | null;
  /** Hosted mode: a JSON file of OAuth clients registered in configuration. */
  readonly oauthClients: string | null;
  /** Hosted mode: requests a minute one grant may send to /mcp, per process. */
  readonly grantRateLimit: number;
  /** Hosted mode: minutes a tenant goes without a request before its books mirror rests (0: at once). */
  readonly tenantIdleMinutes: number;
  /** Hosted mode: sign-ins a minute the service allows from the deployment's address (the spec's 10). */
  readonly serviceSignIns: number;
  /** Hosted mode: whether clients may be identified by the URL of their metadata document. */
  readonly clientIdDocuments: boolean;
  /** Hosted mode: dynamic registrations one client address may make in an hour. */
  readonly registrationsPerHour: number;
}

export const SERVE_USAGE = `usage: invoicing-mcp [--read-only] [--toolsets LIST] [--confirm-writes] [--log-level L]
       invoicing-mcp [--webhook-port N] [--webhook-host H]   (stdio, with a webhook receiver at /webhooks)
       invoicing-mcp [--mirror PATH|postgres://...|memory|off]   (the local copy of the books; mirror status|forget)
       invoicing-mcp [--businesses FILE]   (several businesses, each with its own key: see docs/businesses.md)
       invoicing-mcp --http [--port N] [--host H] [--http-token T] [--allowed-hosts LIST] [--allowed-origins LIST] [--trust-proxy LIST] ...
       invoicing-mcp --hosted --public-url URL --mirror postgres://... [--oauth-clients FILE] [--grant-rate-limit N] [--tenant-idle-minutes N] [--service-sign-ins N]
                 [--client-id-documents on|off] [--registrations-per-hour N]
${HTTP_LIMITS_USAGE}
       any of them with [--max-concurrency N]   (service calls in flight; default: as the key's limit allows)
       any of them with ${RETRY_BUDGET_USAGE}
Each flag also reads INVOICING_MCP_<FLAG> (e.g. INVOICING_MCP_READ_ONLY=1, INVOICING_MCP_HTTP_TOKEN=...).
Toolsets: ${TOOLSETS.filter((t) => t !== 'connection').join(', ')}.`;

type Env = Record<string, string | undefined>;

const envName = (flag: string): string => `INVOICING_MCP_${flag.toUpperCase().replace(/-/g, '_')}`;

function flagOrEnv(values: Record<string, unknown>, env: Env, flag: string): string | boolean | undefined {
  const v = values[flag];
  if (v !== undefined) return v as string | boolean;
  const e = env[envName(flag)];
  return e === undefined || e.trim() === '' ? undefined : e.trim();
}

function bool(values: Record<string, unknown>, env: Env, flag: string): boolean {
  const v = flagOrEnv(values, env, flag);
  if (v === undefined || typeof v === 'boolean') return v ?? false;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(envName(flag), `${envName(flag)} must be true or false, not "${v}"`);
}

function list(values: Record<string, unknown>, env: Env, flag: string): string[] | null {
  const v = flagOrEnv(values, env, flag);
  if (typeof v !== 'string') return null;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function readToolsets(values: Record<string, unknown>, env: Env): Toolset[] | null {
  const names = list(values, env, 'toolsets');
  if (names === null) return null;
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new ConfigError(
      '--toolsets',
      `--toolsets takes a comma-separated list of: ${TOOLSETS.join(', ')} (unknown: ${unknown.join(', ') || 'none given'})`,
    );
  }
  return names as Toolset[];
}

function readPort(values: Record<string, unknown>, env: Env, flag: string): number | null {
  const v = flagOrEnv(values, env, flag);
  if (v === undefined) return null;
  if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) > 65535)
    throw new ConfigError(`--${flag}`, `--${flag} must be a port number from 0 to 65535, not "${String(v)}"`);
  return Number(v);
}

const HTTP_ONLY_FLAGS = ['port', 'host', 'http-token', 'allowed-hosts', 'allowed-origins', 'trust-proxy'];

function readTrustProxy(values: Record<string, unknown>, env: Env): string[] {
  const entries = list(values, env, 'trust-proxy') ?? [];
  const problem = entries.map(proxyEntryProblem).find((p) => p !== null);
  if (problem) throw new ConfigError('--trust-proxy', `--trust-proxy takes the proxies' addresses or ranges, comma-separated: ${problem}`);
  return entries;
}

/** A flag of HTTP mode given on the command line without --http would be silently ignored: refuse it. */
function refuseHttpOnlyFlags(values: Record<string, unknown>): void {
  const given = HTTP_ONLY_FLAGS.find((flag) => values[flag] !== undefined);
  if (given) {
    throw new ConfigError(
      `--${given}`,
      `--${given} is for HTTP mode: add --http to serve Streamable HTTP (without it the server speaks MCP over stdio, which has no ${given === 'port' || given === 'host' ? 'port or host' : 'HTTP settings'})`,
    );
  }
}

function readLogLevel(values: Record<string, unknown>, env: Env): LogLevel {
  const v = flagOrEnv(values, env, 'log-level');
  if (v === undefined) return 'info';
  const level = typeof v === 'string' ? toLogLevel(v) : null;
  if (level === null) throw new ConfigError('--log-level', logLevelProblem('--log-level', String(v)));
  return level;
}

function readMaxConcurrency(values: Record<string, unknown>, env: Env): number | null {
  const v = flagOrEnv(values, env, 'max-concurrency');
  if (v === undefined) return null;
  if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 10_000) {
    throw new ConfigError('--max-concurrency', `--max-concurrency must be a whole number of calls from 1 to 10000, not "${String(v)}"`);
  }
  return Number(v);
}

/** Hosted mode's own flags given on the command line without --hosted would be silently ignored: refuse them. */
function refuseHostedOnlyFlags(values: Record<string, unknown>): void {
  const stray = [
    'public-url',
    'oauth-clients',
    'grant-rate-limit',
    'tenant-idle-minutes',
    'service-sign-ins',
    'client-id-documents',
    'registrations-per-hour',
  ].find((flag) => values[flag] !== undefined);
  if (stray) throw new ConfigError(`--${stray}`, `--${stray} is for hosted mode: add --hosted`);
}

/** A whole-number flag (or its variable) from `min` to `max`; `fallback` when neither is given. */
function readWholeNumber(
  values: Record<string, unknown>,
  env: Env,
  flag: string,
  { fallback, min, max, what }: { fallback: number; min: number; max: number; what: string },
): number {
  const v = flagOrEnv(values, env, flag);
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(`--${flag}`, `--${flag} must be ${what}, from ${min} to ${max}, not "${String(v)}"`);
  }
  return Number(v);
}

const readGrantRateLimit = (values: Record<string, unknown>, env: Env): number =>
  readWholeNumber(values, env, 'grant-rate-limit', { fallback: 600, min: 1, max: 1_000_000, what: 'a whole number of requests a minute' });

const readTenantIdleMinutes = (values: Record<string, unknown>, env: Env): number =>
  readWholeNumber(values, env, 'tenant-idle-minutes', { fallback: 30, min: 0, max: 10_080, what: 'a whole number of minutes' });

const readServiceSignIns = (values: Record<string, unknown>, env: Env): number =>
  readWholeNumber(values, env, 'service-sign-ins', {
    fallback: 10,
    min: 2,
    max: 1_000_000,
    what: 'the whole number of sign-ins a minute the service allows from one address',
  });

function readClientIdDocuments(values: Record<string, unknown>, env: Env): boolean {
  const v = flagOrEnv(values, env, 'client-id-documents');
  if (v === undefined || v === 'on') return true;
  if (v === 'off') return false;
  throw new ConfigError('--client-id-documents', `--client-id-documents must be on or off, not "${String(v)}"`);
}

const readRegistrationsPerHour = (values: Record<string, unknown>, env: Env): number =>
  readWholeNumber(values, env, 'registrations-per-hour', {
    fallback: 20,
    min: 1,
    max: 1_000_000,
    what: 'a whole number of client registrations an hour from one address',
  });

function readBusinessesSetting(values: Record<string, unknown>, env: Env, hosted: boolean): string | null {
  const setting = (flagOrEnv(values, env, 'businesses') as string | undefined) ?? null;
  if (setting !== null && hosted)
    throw new ConfigError(
      '--businesses',
      '--businesses is for the desktop and --http: in hosted mode each person signs in with their own key',
    );
  return setting;
}

/** Every flag the server takes, for node's parseArgs. */
const SERVE_FLAGS = {
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'http-token': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'allowed-origins': { type: 'string' },
  'trust-proxy': { type: 'string' },
  'read-only': { type: 'boolean' },
  toolsets: { type: 'string' },
  'confirm-writes': { type: 'boolean' },
  'log-level': { type: 'string' },
  'webhook-port': { type: 'string' },
  'webhook-host': { type: 'string' },
  ...HTTP_LIMIT_FLAGS,
  mirror: { type: 'string' },
  businesses: { type: 'string' },
  'max-concurrency': { type: 'string' },
  ...RETRY_BUDGET_FLAG,
  hosted: { type: 'boolean' },
  'public-url': { type: 'string' },
  'oauth-clients': { type: 'string' },
  'grant-rate-limit': { type: 'string' },
  'tenant-idle-minutes': { type: 'string' },
  'service-sign-ins': { type: 'string' },
  'client-id-documents': { type: 'string' },
  'registrations-per-hour': { type: 'string' },
} as const;

export function parseServeOptions(argv: string[], env: Env): ServeOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: SERVE_FLAGS,
  });
  const hosted = bool(values, env, 'hosted');
  if (!hosted) refuseHostedOnlyFlags(values);
  const host = (flagOrEnv(values, env, 'host') as string | undefined) ?? '127.0.0.1';
  const httpToken = (flagOrEnv(values, env, 'http-token') as string | undefined) ?? null;
  const transport = hosted || bool(values, env, 'http') ? 'http' : 'stdio';
  if (hosted && httpToken !== null) {
    throw new ConfigError('--http-token', '--http-token is one shared token; in hosted mode people sign in with OAuth: leave it out');
  }
  if (transport === 'http' && !hosted && !isLoopbackHost(host) && httpToken === null) {
    throw new ConfigError(
      '--http-token',
      `binding to ${host} reaches beyond this machine: set --http-token (or INVOICING_MCP_HTTP_TOKEN) so clients must send it as a bearer token`,
    );
  }
  if (transport === 'stdio') refuseHttpOnlyFlags(values);
  const webhookPort = readPort(values, env, 'webhook-port');
  if (transport === 'http' && webhookPort !== null) {
    throw new ConfigError(
      '--webhook-port',
      "--webhook-port is for stdio mode: with --http the service's webhooks come to /webhooks on the same server",
    );
  }
  if (httpToken !== null && (httpToken.length < 16 || !/^[\x21-\x7e]+$/.test(httpToken))) {
    throw new ConfigError(
      '--http-token',
      '--http-token must be at least 16 printable ASCII characters without spaces (use a long random value)',
    );
  }
  return Object.freeze({
    transport,
    host,
    port: readPort(values, env, 'port') ?? 8765,
    httpToken,
    allowedHosts: list(values, env, 'allowed-hosts') ?? [],
    allowedOrigins: list(values, env, 'allowed-origins') ?? [],
    trustProxy: readTrustProxy(values, env),
    readOnly: bool(values, env, 'read-only'),
    toolsets: readToolsets(values, env),
    confirmWrites: bool(values, env, 'confirm-writes'),
    logLevel: readLogLevel(values, env),
    webhookPort,
    webhookHost: (flagOrEnv(values, env, 'webhook-host') as string | undefined) ?? '127.0.0.1',
    ...readHttpLimits((flag) => flagOrEnv(values, env, flag)),
    mirror: (flagOrEnv(values, env, 'mirror') as string | undefined) ?? null,
    businesses: readBusinessesSetting(values, env, hosted),
    maxConcurrency: readMaxConcurrency(values, env),
    retryBudgetMs: readRetryBudget((flag) => flagOrEnv(values, env, flag)),
    hosted,
    publicUrl: (flagOrEnv(values, env, 'public-url') as string | undefined) ?? null,
    oauthClients: (flagOrEnv(values, env, 'oauth-clients') as string | undefined) ?? null,
    grantRateLimit: readGrantRateLimit(values, env),
    tenantIdleMinutes: readTenantIdleMinutes(values, env),
    serviceSignIns: readServiceSignIns(values, env),
    clientIdDocuments: readClientIdDocuments(values, env),
    registrationsPerHour: readRegistrationsPerHour(values, env),
  });
}
