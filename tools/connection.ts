// check_connection: is the key working, in which mode, for which business, with which scopes.
import * as z from 'zod/v4';
import { defineTool, READ_HINTS } from './define.js';

export const checkConnection = defineTool({
  name: 'check_connection',
  title: 'Check connection',
  description: 'Mode (live/test), business, session expiry and scopes of the key. Use when other tools fail.',
  toolset: 'connection',
  scope: null,
  input: z.object({}),
  output: z.object({
    ok: z.boolean(),
    mode: z.string(),
    business: z.object({ id: z.number().int().nullish(), name: z.string().nullish() }),
    session_expires_at: z.string().nullish(),
    scopes: z.array(z.string()),
  }),
  annotations: READ_HINTS,
  async handler({ api }) {
    const session = await api.session();
    const ping = await api.ping();
    const business = { id: ping.business?.id ?? session.business?.id ?? null, name: ping.business?.name ?? session.business?.name ?? null };
    const structured = {
      ok: ping.ok,
      mode: ping.mode ?? session.mode,
      business,
      session_expires_at: ping.session_expires_at ?? null,
      scopes: session.scopes,
    };
    const text = [
      `Connected in ${structured.mode} mode to ${business.name ?? 'the business'} (id ${business.id ?? '?'}).`,
      `Session expires ${structured.session_expires_at ?? 'at an unknown time'}.`,
      `Scopes: ${structured.scopes.length > 0 ? structured.scopes.join(', ') : 'none reported'}.`,
      structured.mode === 'test' ? 'Test mode: sample books; creates are validated but not saved.' : '',
    ]
      .filter(Boolean)
      .join('\n');
    return { structured, text };
  },
});
