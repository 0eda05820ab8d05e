// The business operations both event tests drive through the sandbox's admin interface, and the events
// each must produce (kind, record, related), so the receiver and the mirror are held to one list.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { BooksEvent, EventKind } from '../../src/events/event.js';
import { Exact } from '../support/exact.js';
import { admin as adminCall, get, type Json, listAll, post, type SandboxHandle, type Session } from './sandbox-http.js';

export interface Expected {
  kind: EventKind;
  record: string;
  related: string[];
  /** The webhook's event id (the sandbox's admin answer names it). */
  eventId?: string;
}

export interface Op {
  name: string;
  run(): Promise<Expected[]>;
}

/** Whether `event` is the one `want` describes (and the URIs say so). */
export function matches(event: BooksEvent, uris: readonly string[], want: Expected): boolean {
  const record = `invoicing://${event.record.kind}/${event.record.id}`;
  return (
    event.kind === want.kind &&
    record === want.record &&
    JSON.stringify(event.related.map((r) => `invoicing://${r.kind}/${r.id}`).sort()) === JSON.stringify([...want.related].sort()) &&
    uris.includes(record) &&
    uris.includes('invoicing://events') &&
    want.related.every((u) => uris.includes(u)) &&
    (event.kind !== 'stock.low' || uris.includes('invoicing://products/low-stock'))
  );
}

/** A tracked product at or below its reorder level, moved 10 above it. */
async function restocked(live: Session, move: (body: Json) => Promise<Json>): Promise<Json> {
  const low = (await listAll(live, '/api/v1/products?track_stock=true&low_stock=true&active=true'))[0];
  const quantity = Exact.of(low.stock.reorder_level).minus(low.stock.on_hand).plus(10);
  return (await move({ product_id: low.id, branch_id: low.stock.branches[0].branch_id, quantity: quantity.toFixed(6) })).data;
}

async function ok(reply: Promise<{ status: number; body: Json; text: string }>, what: string): Promise<Json> {
  const r = await reply;
  if (r.status >= 300) throw new Error(`${what} answered ${r.status}: ${r.text}`);
  return r.body;
}

/**
 * The four kinds of business operation, in order; each returns the events it must cause. `live` signs in with a
 * key of `businessId` (the small business, 2, has few records: a sent quote or a product above its reorder
 * level is made here when it has none left).
 */
export async function businessOps(sb: SandboxHandle, live: Session, businessId = 1): Promise<Op[]> {
  const admin = (sbx: SandboxHandle, method: string, path: string, json?: unknown) =>
    adminCall(sbx, method, businessId === 1 ? path : `${path}?business_id=${businessId}`, json);
  const customerId = (await get(live, '/api/v1/customers?status=active&per_page=1')).body.data[0].id as number;
  const draft = async (price: string): Promise<Json> =>
    (
      await ok(
        post(
          live,
          '/api/v1/invoices',
          { customer_id: customerId, items: [{ description: 'Events test', quantity: 1, unit_price: price }] },
          { 'idempotency-key': randomUUID() },
        ),
        'draft',
      )
    ).data;
  const a = await draft('100.00');
  const b = await draft('20.00');
  const inv = (x: Json) => `invoicing://invoices/${x.id}`;
  const quote =
    (await listAll(live, '/api/v1/quotes?status=sent'))[0] ??
    (await ok(admin(sb, 'POST', '/quotes', { customer_id: customerId, total: '480.00' }), 'send a quote')).data;
  const product =
    (await listAll(live, '/api/v1/products?track_stock=true&low_stock=false&active=true'))[0] ??
    (await restocked(live, (moved) => ok(admin(sb, 'POST', '/stock-movements', moved), 'restock')));

  return [
    {
      name: 'send two invoices',
      run: async () => {
        const sentA = await ok(admin(sb, 'POST', `/invoices/${a.id}/send`), 'send');
        const sentB = await ok(admin(sb, 'POST', `/invoices/${b.id}/send`), 'send');
        return [
          { kind: 'invoice.sent', record: inv(a), related: [], eventId: sentA.event_ids[0] },
          { kind: 'invoice.sent', record: inv(b), related: [], eventId: sentB.event_ids[0] },
        ];
      },
    },
    {
      name: 'a payment paying one invoice in part and another in full',
      run: async () => {
        const paid = await ok(
          admin(sb, 'POST', '/payments', {
            customer_id: customerId,
            amount: Exact.of('40.00').plus(b.total).toFixed(2),
            method: 'bank_transfer',
            allocations: [
              { invoice_id: a.id, amount: '40.00' },
              { invoice_id: b.id, amount: b.total },
            ],
          }),
          'payment',
        );
        expect(paid.event_ids).toHaveLength(2);
        return [
          {
            kind: 'payment.recorded',
            record: `invoicing://payments/${paid.data.id}`,
            related: [inv(a), inv(b)],
            eventId: paid.event_ids[0],
          },
          { kind: 'invoice.paid', record: inv(b), related: [], eventId: paid.event_ids[1] },
        ];
      },
    },
    {
      name: 'accept a quote',
      run: async () => {
        const accepted = await ok(admin(sb, 'POST', `/quotes/${quote.id}/accept`), 'accept');
        return [{ kind: 'quote.accepted', record: `invoicing://quotes/${quote.id}`, related: [], eventId: accepted.event_ids[0] }];
      },
    },
    {
      name: 'move stock down to the reorder level',
      run: async () => {
        const delta = Exact.of(product.stock.reorder_level).minus(product.stock.on_hand);
        const moved = await ok(
          admin(sb, 'POST', '/stock-movements', {
            product_id: product.id,
            branch_id: product.stock.branches[0].branch_id,
            quantity: delta.toFixed(6),
          }),
          'stock movement',
        );
        expect(moved.event_ids).toHaveLength(1);
        return [{ kind: 'stock.low', record: `invoicing://products/${product.id}`, related: [], eventId: moved.event_ids[0] }];
      },
    },
  ];
}
