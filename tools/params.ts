// Input pieces every tool shares, named as in the API so the spec documents them too.
import * as z from 'zod/v4';

export const INVOICE_STATUSES = ['draft', 'approved', 'issued', 'sent', 'viewed', 'part_paid', 'paid', 'overdue', 'void'] as const;

export const paging = {
  page: z.number().int().min(1).optional(),
  per_page: z.number().int().min(1).max(100).optional(),
  updated_since: z
    .string()
    .regex(
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/,
      'a date 2026-01-31 or a timestamp 2026-01-31T09:00:00Z',
    )
    .optional()
    .describe('ISO date or timestamp'),
};

export const recordId = (from: string) => z.number().int().positive().describe(`From ${from}`);

export const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  // It travels as an HTTP header: anything else would be refused on the way out, on every retry alike.
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII only (letters, digits, punctuation; no spaces or control characters), such as a UUID')
  .optional()
  .describe('Reuse on retry: never creates twice');

/** A free-text filter: some text, at most as long as the field it searches. */
export const filterText = (max = 255) => z.string().min(1).max(max).optional();

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

/**
 * The decimal a JSON number was written as, when that is certain: its shortest round-trip text (what
 * String gives) equals the written decimal whenever that had at most 15 significant digits. Null for
 * a number that is negative, not finite, in exponent form, or has more digits than a double holds exactly.
 */
export function exactDecimal(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const text = String(n);
  if (/e/i.test(text)) return null;
  const significant = text.replace('.', '').replace(/^0+/, '');
  return significant.length <= 15 ? text : null;
}

/**
 * A money amount, kept a decimal string end to end: a string such as "19.95", or a JSON number taken as
 * exactly the decimal it was written as (refused, with the reason, when that cannot be known).
 */
export function decimalAmount(field: string, places: number, example: string) {
  const pattern = new RegExp(`^\\d+(\\.\\d{1,${places}})?$`);
  const shape = `a decimal with at most ${places} decimals, such as "${example}"`;
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    if (typeof value === 'string') {
      if (pattern.test(value)) return value;
      ctx.issues.push({ code: 'custom', input: value, message: `${field} must be ${shape}, not "${value}"` });
      return z.NEVER;
    }
    const text = exactDecimal(value);
    if (text !== null && pattern.test(text)) return text;
    const why =
      value < 0
        ? 'it is negative'
        : text === null
          ? 'it has more digits than a JSON number carries exactly'
          : `it has more than ${places} decimals`;
    ctx.issues.push({
      code: 'custom',
      input: value,
      message: `${field} ${String(value)} cannot be taken as an exact amount (${why}): send it as a decimal string, ${shape}`,
    });
    return z.NEVER;
  });
}
