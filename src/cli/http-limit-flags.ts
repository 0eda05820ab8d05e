// The HTTP listeners' limits as flags (and INVOICING_MCP_* variables): timeouts in seconds, caps as counts.
// Defaults suit a slow mobile client; tests pass short ones.

import {
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_HTTP_LIMITS,
  DEFAULT_SESSION_LIMITS,
  type HttpLimits,
  type SessionLimits,
} from '../http/limits.js';
import { ConfigError } from './service-env.js';

export const HTTP_LIMIT_FLAGS = {
  'headers-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-sessions': { type: 'string' },
  'max-sessions-per-client': { type: 'string' },
  'max-streams-per-client': { type: 'string' },
  'session-idle-timeout': { type: 'string' },
  'stream-lifetime': { type: 'string' },
  'drain-timeout': { type: 'string' },
} as const;

export const DEFAULT_MAX_SESSIONS = 1000;

export const HTTP_LIMITS_USAGE = `       HTTP limits: [--headers-timeout S] [--request-timeout S] [--idle-timeout S] [--max-connections N] [--max-sessions N]
                    [--max-sessions-per-client N] [--max-streams-per-client N] [--session-idle-timeout S] [--stream-lifetime S]
                    [--drain-timeout S]`;

type Read = (flag: string) => string | boolean | undefined;

function positive(read: Read, flag: string, integer: boolean): number | null {
  const v = read(flag);
  if (v === undefined) return null;
  const ok = typeof v === 'string' && (integer ? /^\d+$/ : /^\d+(\.\d+)?$/).test(v) && Number(v) > 0;
  if (!ok)
    throw new ConfigError(
      `--${flag}`,
      `--${flag} must be a positive ${integer ? 'whole number' : 'number of seconds'}, not "${String(v)}"`,
    );
  return Number(v);
}

const ms = (read: Read, flag: string, fallback: number): number => {
  const seconds = positive(read, flag, false);
  return seconds === null ? fallback : Math.round(seconds * 1000);
};

export interface HttpLimitOptions {
  limits: HttpLimits;
  maxSessions: number;
  sessionLimits: SessionLimits;
  drainTimeoutMs: number;
}

export function readHttpLimits(read: Read): HttpLimitOptions {
  const d = DEFAULT_HTTP_LIMITS;
  const limits: HttpLimits = {
    headersTimeoutMs: ms(read, 'headers-timeout', d.headersTimeoutMs),
    requestTimeoutMs: ms(read, 'request-timeout', d.requestTimeoutMs),
    idleTimeoutMs: ms(read, 'idle-timeout', d.idleTimeoutMs),
    maxConnections: positive(read, 'max-connections', true) ?? d.maxConnections,
  };
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) {
    throw new ConfigError('--request-timeout', '--request-timeout must be at least --headers-timeout (the request includes its headers)');
  }
  const s = DEFAULT_SESSION_LIMITS;
  const sessionLimits: SessionLimits = {
    maxSessionsPerClient: positive(read, 'max-sessions-per-client', true) ?? s.maxSessionsPerClient,
    maxStreamsPerClient: positive(read, 'max-streams-per-client', true) ?? s.maxStreamsPerClient,
    sessionIdleMs: ms(read, 'session-idle-timeout', s.sessionIdleMs),
    streamLifetimeMs: ms(read, 'stream-lifetime', s.streamLifetimeMs),
  };
  return {
    limits,
    maxSessions: positive(read, 'max-sessions', true) ?? DEFAULT_MAX_SESSIONS,
    sessionLimits,
    drainTimeoutMs: ms(read, 'drain-timeout', DEFAULT_DRAIN_TIMEOUT_MS),
  };
}
