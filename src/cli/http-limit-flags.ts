// The HTTP listeners' limits as flags (and INVOICING_MCP_* variables): timeouts in seconds, caps as counts.
// Defaults suit a slow mobile client; tests pass short ones.

import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../http/limits.js';
import { ConfigError } from './service-env.js';

export const HTTP_LIMIT_FLAGS = {
  'headers-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-sessions': { type: 'string' },
} as const;

export const DEFAULT_MAX_SESSIONS = 1000;

export const HTTP_LIMITS_USAGE =
  '       HTTP limits: [--headers-timeout S] [--request-timeout S] [--idle-timeout S] [--max-connections N] [--max-sessions N]';

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

export function readHttpLimits(read: Read): { limits: HttpLimits; maxSessions: number } {
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
  return { limits, maxSessions: positive(read, 'max-sessions', true) ?? DEFAULT_MAX_SESSIONS };
}
