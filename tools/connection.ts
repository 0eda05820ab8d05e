// check_connection: is the key working, in which mode, for which business (and its base currency), with which scopes.
import * as z from 'zod/v4';
import { baseCurrency } from './base-currency.js';
import { defineTool, READ_HINTS } from './define.js';

export const checkConnection = defineTool({
  name: 'check_connection',
  title: 'Check connection',
  description: 'Mode (live/test), business, base currency, session expiry, scopes. Use when other tools fail.',
  toolset: 'connection',
  scope: null,
  input: z.object({}),
  output: z.object({
    ok: z.boolean(),
    mode: z.string(),
    business: z.object({
      id: z.number().int().nullish(),
      name: z.string().nullish(),
      base_currency: z.string().nullable(),
      base_currency_from: z.string(),
    }),
    session_expires_at: z.string().nullish(),
    scopes: z.array(z.string()),
  }),
  annotations: READ_HINTS,
  async handler(ctx) {
    const { api } = ctx;
    const session = await api.session();
    const ping = await api.ping();
    const currency = await baseCurrency(ctx, session.scopes);
    const business = {
      id: ping.business?.id ?? session.business?.id ?? null,
      name: ping.business?.name ?? session.business?.name ?? null,
      base_currency: currency.code,
      base_currency_from: currency.from,
    };
    const structured = {
      ok: ping.ok,
      mode: ping.mode ?? session.mode,
      business,
      session_expires_at: ping.session_expires_at ?? null,
      scopes: session.scopes,
    };
    const text = [
      `Connected in ${structured.mode} mode to ${business.name ?? 'the business'} (id ${business.id ?? '?'}).`,
      `Drafts are made in the business's base currency, no other: ${currency.code ?? 'not known'} (${currency.from}; the service does not report it).`,
      `Session expires ${structured.session_expires_at ?? 'at an unknown time'}.`,
      `Scopes: ${structured.scopes.length > 0 ? structured.scopes.join(', ') : 'none reported'}.`,
      structured.mode === 'test' ? 'Test mode: sample books; creates are validated but not saved.' : '',
    ]
      .filter(Boolean)
      .join('\n');
    return { structured, text };
  },
});
