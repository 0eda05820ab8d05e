// `invoicing-mcp check`: signs in and tells what the key can do.

import { createLogger } from '../log/logger.js';
import { TOOLS } from '../mcp/registry.js';
import { connect } from './connect.js';
import { readRetryBudget } from './retry-budget-flag.js';
import type { ServiceEnv } from './service-env.js';

/** The value of `--flag V` or `--flag=V` among `check`'s words, else of its INVOICING_MCP_ variable. */
function flagOrEnv(argv: readonly string[], env: Record<string, string | undefined>, flag: string): string | undefined {
  const at = argv.findIndex((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  const given = at < 0 ? undefined : argv[at]?.includes('=') ? argv[at]?.split('=')[1] : argv[at + 1];
  const variable = env[`INVOICING_MCP_${flag.toUpperCase().replace(/-/g, '_')}`]?.trim();
  return given ?? (variable === '' ? undefined : variable);
}

/** `--mirror off` (or INVOICING_MCP_MIRROR=off) turns the mirror off, and with it the answer tools. */
export function mirrorOff(argv: readonly string[], env: Record<string, string | undefined>): boolean {
  return (flagOrEnv(argv, env, 'mirror') ?? '').trim() === 'off';
}

export async function runCheck(env: ServiceEnv, argv: readonly string[] = []): Promise<string> {
  const logger = createLogger({ level: 'warn' });
  const retryBudgetMs = readRetryBudget((flag) => flagOrEnv(argv, env, flag));
  const connection = await connect(env, async () => logger, retryBudgetMs === null ? {} : { retryBudgetMs });
  try {
    const session = await connection.api.session();
    const ping = await connection.api.ping();
    const limit = connection.api.stats().rateLimit;
    const off = mirrorOff(argv, env);
    const shown = TOOLS.filter((t) => !(off && t.books));
    const usable = shown.filter((t) => t.scope === null || session.scopes.includes(t.scope)).map((t) => t.name);
    const refused = shown.filter((t) => !usable.includes(t.name)).map((t) => `${t.name} (needs ${t.scope})`);
    const answers = TOOLS.filter((t) => t.books).map((t) => t.name);
    return [
      `service   ${connection.sandbox ? `${connection.api.baseUrl} (built-in sandbox)` : connection.api.baseUrl}`,
      `mode      ${ping.mode ?? session.mode}`,
      `business  ${ping.business?.name ?? session.business?.name ?? '?'} (id ${ping.business?.id ?? session.business?.id ?? '?'})`,
      `key       ${session.keyId}`,
      `session   expires ${ping.session_expires_at ?? '?'}`,
      `scopes    ${session.scopes.join(', ') || 'none reported'}`,
      `limits    ${limit.limit ?? '?'} calls per window for this key, ${limit.remaining ?? '?'} left now (from X-RateLimit-*)`,
      `tools     ${usable.join(', ')}`,
      ...(refused.length > 0 ? [`refused   ${refused.join(', ')}`] : []),
      off
        ? `answers   off: the mirror is off (--mirror off), so ${answers.join(', ')} are hidden`
        : `answers   ${answers.join(', ')} (from the books mirror)`,
    ].join('\n');
  } finally {
    await connection.close();
  }
}
