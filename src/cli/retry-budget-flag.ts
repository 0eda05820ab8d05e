// How long one service call keeps retrying faults and unanswered attempts, as a flag (and
// INVOICING_MCP_RETRY_BUDGET) of the server and of `check`: seconds. The default rides out a service that
// blips; a short one reports an address that is down sooner (tests pass one).
import { ConfigError } from './service-env.js';

export const RETRY_BUDGET_FLAG = { 'retry-budget': { type: 'string' } } as const;

export const RETRY_BUDGET_USAGE = '[--retry-budget S]   (seconds a service call keeps retrying; default 30)';

/** The budget in ms from the flag or its variable; null when neither is set. */
export function readRetryBudget(read: (flag: string) => string | boolean | undefined): number | null {
  const v = read('retry-budget');
  if (v === undefined) return null;
  if (typeof v !== 'string' || !/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0 || Number(v) > 3600) {
    throw new ConfigError('--retry-budget', `--retry-budget must be a number of seconds above 0 and at most 3600, not "${String(v)}"`);
  }
  return Math.round(Number(v) * 1000);
}
