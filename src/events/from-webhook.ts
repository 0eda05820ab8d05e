// A verified webhook body `{id, event, created_at, data}` as a BooksEvent. Lenient about extra fields (the
// service may add some); strict about what the bus needs: the id, a known kind and the record's id.
import { z } from 'zod';
import { type BooksEvent, EVENT_KINDS, EVENT_NOUN, type EventKind, recordKindOf, relatedInvoices } from './event.js';

const RecordRef = z.looseObject({ id: z.number().int().positive() });

const EnvelopeSchema = z.looseObject({
  id: z.string().min(1).max(200),
  event: z.string().min(1).max(100),
  created_at: z.string().max(100),
  data: z.record(z.string(), z.unknown()),
});

const PaymentRef = z.looseObject({
  id: z.number().int().positive(),
  allocations: z.array(z.looseObject({ invoice_id: z.number().int().positive() })).optional(),
});

export type WebhookParse =
  | { ok: true; event: BooksEvent }
  /** A well-formed delivery of a kind we do not know: acknowledged, not published. */
  | { ok: false; reason: 'unknown-kind'; eventId: string; kind: string }
  | { ok: false; reason: 'invalid'; message: string };

const isKind = (k: string): k is EventKind => (EVENT_KINDS as readonly string[]).includes(k);

/** Reads a parsed JSON body (already verified) into an event. */
export function eventFromWebhook(body: unknown): WebhookParse {
  const envelope = EnvelopeSchema.safeParse(body);
  if (!envelope.success) return { ok: false, reason: 'invalid', message: 'body is not {id, event, created_at, data}' };
  const { id, event: kind, created_at: createdAt, data } = envelope.data;
  if (!isKind(kind)) return { ok: false, reason: 'unknown-kind', eventId: id, kind };
  const noun = EVENT_NOUN[kind];
  const record = data[noun];
  const parsed = (kind === 'payment.recorded' ? PaymentRef : RecordRef).safeParse(record);
  if (!parsed.success) return { ok: false, reason: 'invalid', message: `data.${noun} with a numeric id is missing` };
  const allocations = (parsed.data as z.infer<typeof PaymentRef>).allocations ?? [];
  const related = relatedInvoices(allocations.map((a) => a.invoice_id));
  return {
    ok: true,
    event: {
      id,
      kind,
      createdAt,
      source: 'webhook',
      record: { kind: recordKindOf(kind), id: parsed.data.id },
      related,
      data: record as Record<string, unknown>,
    },
  };
}
