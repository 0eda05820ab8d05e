// Completion of a customer argument: names of active customers matching what was typed.
import { completable } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ContextFor } from './define.js';

export function customerArgument(contextFor: ContextFor, description: string) {
  return completable(z.string().min(1).describe(description), async (value: string, context?: { arguments?: Record<string, string> }) => {
    const ctx = contextFor(context?.arguments);
    if (!ctx) return [];
    try {
      const page = await ctx.api.customers.list({ status: 'active', per_page: 20, ...(value ? { search: value } : {}) });
      return page.data.map((c) => c.name);
    } catch (err) {
      ctx.logger.warn({ err }, 'customer completion failed');
      return [];
    }
  });
}
