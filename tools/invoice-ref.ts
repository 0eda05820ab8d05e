// get_invoice takes an id or the invoice's number (`INV-00421`). The service lists no number filter, so a
// number is looked up in the books mirror (numbers never change), or, with the mirror off, by paging the list.
import * as z from 'zod/v4';
import { RefusedQuestion } from '../src/core/refused.js';
import type { ToolContext } from './context.js';

export const invoiceRef = z
  .union([
    z.number().int().positive(),
    z
      .string()
      .trim()
      .regex(/^[A-Za-z]+-\d+$/, 'an invoice number such as INV-00421'),
  ])
  .describe('From list_invoices, or the number (INV-00421)');

const sameNumber = (a: string, b: string): boolean => a.toUpperCase() === b.toUpperCase();

async function fromMirror(ctx: ToolContext, number: string): Promise<number | null> {
  const books = ctx.books;
  if (!books) return null;
  const find = async () => (await books.read.invoices({ number })).find((i) => sameNumber(i.number, number))?.id ?? null;
  // An invoice made since the last sync is not held yet: one refresh, then look again.
  return (await find()) ?? (await books.ensureFresh(['invoices']).then(find));
}

async function fromList(ctx: ToolContext, number: string): Promise<number | null> {
  for await (const invoice of ctx.api.invoices.all()) if (sameNumber(invoice.number, number)) return invoice.id;
  return null;
}

export async function invoiceIdOf(ctx: ToolContext, ref: number | string): Promise<number> {
  if (typeof ref === 'number') return ref;
  const id = ctx.books ? await fromMirror(ctx, ref) : await fromList(ctx, ref);
  if (id === null)
    throw new RefusedQuestion(
      `No invoice numbered ${ref} in this business: check the number, or find it with find_records or list_invoices.`,
    );
  return id;
}
