// `invoicing-mcp check`: signs in and tells what the key can do.
import { TOOLS } from '../../tools/index.js';
import type { ServiceEnv } from '../config.js';
import { createLogger } from '../logger.js';
import { connect } from './connect.js';

export async function runCheck(env: ServiceEnv): Promise<string> {
  const logger = createLogger({ level: 'warn' });
  const connection = await connect(env, async () => logger);
  try {
    const session = await connection.api.session();
    const ping = await connection.api.ping();
    const limit = connection.api.stats().rateLimit;
    const usable = TOOLS.filter((t) => t.scope === null || session.scopes.includes(t.scope)).map((t) => t.name);
    const refused = TOOLS.filter((t) => !usable.includes(t.name)).map((t) => `${t.name} (needs ${t.scope})`);
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
    ].join('\n');
  } finally {
    await connection.close();
  }
}
