// Input pieces every tool shares, named as in the API so the spec documents them too.
import * as z from 'zod/v4';

export const INVOICE_STATUSES = ['draft', 'approved', 'issued', 'sent', 'viewed', 'part_paid', 'paid', 'overdue', 'void'] as const;

export const paging = {
  page: z.number().int().min(1).optional(),
  per_page: z.number().int().min(1).max(100).optional(),
  updated_since: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/, 'a date 2026-01-31 or a timestamp 2026-01-31T09:00:00Z')
    .optional()
    .describe('ISO date or timestamp'),
};

export const recordId = (from: string) => z.number().int().positive().describe(`From ${from}`);

export const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe('Reuse on retry: never creates twice');

/** The page envelope's `meta`, kept for the model to page on. */
export const pageMeta = z.object({
  current_page: z.number().int().nullish(),
  last_page: z.number().int().nullish(),
  per_page: z.number().int().nullish(),
  total: z.number().int().nullish(),
  from: z.number().int().nullish(),
  to: z.number().int().nullish(),
});

/** Drops undefined values so the query carries only what the caller gave. */
export function defined<T extends object>(args: T): Partial<T> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) as Partial<T>;
}
