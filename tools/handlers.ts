// The two handler shapes every read tool shares: one page of a list, and one record by id.
import type { ToolContext } from './context.js';
import type { ToolOutcome } from './define.js';
import { listText, type PageMeta } from './format.js';
import { defined } from './params.js';

type Resource = 'customers' | 'invoices' | 'quotes' | 'payments' | 'products';

export function listHandler<T>(resource: Resource, line: (record: T) => string) {
  return async ({ api }: ToolContext, args: object): Promise<ToolOutcome<{ data: T[]; meta: PageMeta }>> => {
    const page = await api[resource].list(defined(args) as never);
    const meta = page.meta ?? {};
    const data = page.data as T[];
    return { structured: { data, meta }, text: listText(data.map(line), meta, resource) };
  };
}

export function getHandler<T>(resource: Resource, text: (record: T) => string) {
  return async ({ api }: ToolContext, { id }: { id: number }): Promise<ToolOutcome<T>> => {
    const record = (await api[resource].get(id)) as T;
    return { structured: record, text: text(record) };
  };
}
