// Completion of a customer argument: names of active customers matching what was typed.
import { completable } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ToolContext } from '../tools/context.js';

export function customerArgument(ctx: ToolContext, description: string) {
  return completable(z.string().min(1).describe(description), async (value: string) => {
    try {
      const page = await ctx.api.customers.list({ status: 'active', per_page: 20, ...(value ? { search: value } : {}) });
      return page.data.map((c) => c.name);
    } catch (err) {
      ctx.logger.warn({ err }, 'customer completion failed');
      return [];
    }
  });
}
