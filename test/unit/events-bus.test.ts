// The event bus: each event once (by id and by change), invalidation of its records before listeners hear
// of it, a bounded history newest first, and a listener that throws does not stop the others.
import { describe, expect, it } from 'vitest';
import { changeKey, createEventBus } from '../../src/events/bus.js';
import { type BooksEvent, EVENTS_FEED_URI, eventUris, LOW_STOCK_FEED_URI, recordKindOf } from '../../src/events/event.js';

function event(over: Partial<BooksEvent> = {}): BooksEvent {
  return {
    id: 'evt_1',
    kind: 'invoice.sent',
    createdAt: '2026-11-23T10:00:00+13:00',
    source: 'webhook',
    record: { kind: 'invoices', id: 7 },
    related: [],
    data: { id: 7, status: 'sent', updated_at: '2026-11-23T10:00:00+13:00' },
    ...over,
  };
}

function setup(options: { historySize?: number; memory?: number } = {}) {
  const invalidated: string[] = [];
  const errors: unknown[] = [];
  const bus = createEventBus({
    invalidate: (kind, id) => invalidated.push(`${kind}/${id}`),
    onListenerError: (e) => errors.push(e),
    ...options,
  });
  return { bus, invalidated, errors };
}

describe('event URIs', () => {
  it('names the record, the related records, the feed; products also the low-stock feed', () => {
    expect(eventUris(event())).toEqual(['invoicing://invoices/7', EVENTS_FEED_URI]);
    const payment = event({
      kind: 'payment.recorded',
      record: { kind: 'payments', id: 3 },
      related: [
        { kind: 'invoices', id: 7 },
        { kind: 'invoices', id: 8 },
      ],
    });
    expect(eventUris(payment)).toEqual(['invoicing://payments/3', 'invoicing://invoices/7', 'invoicing://invoices/8', EVENTS_FEED_URI]);
    const low = event({ kind: 'stock.low', record: { kind: 'products', id: 4 } });
    expect(eventUris(low)).toEqual(['invoicing://products/4', LOW_STOCK_FEED_URI, EVENTS_FEED_URI]);
    expect(recordKindOf('quote.accepted')).toBe('quotes');
    expect(recordKindOf('stock.low')).toBe('products');
  });
});

describe('createEventBus', () => {
  it('publishes once per event id', () => {
    const { bus } = setup();
    const heard: string[] = [];
    bus.listen((e) => heard.push(e.id));
    expect(bus.publish(event())).toBe(true);
    expect(bus.publish(event())).toBe(false);
    expect(bus.publish(event({ data: { id: 7, updated_at: 'another stamp' } }))).toBe(false);
    expect(heard).toEqual(['evt_1']);
  });

  it('publishes two webhooks of one record with the same stamp: their ids make them two events', () => {
    const { bus } = setup();
    expect(
      bus.publish(
        event({
          id: 'evt_low_1',
          kind: 'stock.low',
          record: { kind: 'products', id: 4 },
          data: { id: 4, updated_at: '2026-11-23T10:00:00+13:00' },
        }),
      ),
    ).toBe(true);
    expect(
      bus.publish(
        event({
          id: 'evt_low_2',
          kind: 'stock.low',
          record: { kind: 'products', id: 4 },
          data: { id: 4, updated_at: '2026-11-23T10:00:00+13:00' },
        }),
      ),
    ).toBe(true);
    expect(bus.recent().map((e) => e.id)).toEqual(['evt_low_2', 'evt_low_1']);
  });

  it('publishes once per change: the poller reporting what a webhook already did is dropped', () => {
    const { bus } = setup();
    const heard: string[] = [];
    bus.listen((e) => heard.push(e.id));
    expect(bus.publish(event())).toBe(true);
    const polled = event({ id: 'poll_abc', source: 'poll' });
    expect(changeKey(polled)).toBe(changeKey(event()));
    expect(bus.publish(polled)).toBe(false);
    // ...and the other way round.
    const first = event({ id: 'poll_first', source: 'poll', record: { kind: 'invoices', id: 9 }, data: { id: 9, updated_at: 'S' } });
    expect(bus.publish(first)).toBe(true);
    expect(bus.publish(event({ id: 'evt_9', record: { kind: 'invoices', id: 9 }, data: { id: 9, updated_at: 'S' } }))).toBe(false);
    // Another change of the same record (a later stamp) or another kind of event is new.
    expect(bus.publish(event({ id: 'evt_2', data: { id: 7, updated_at: '2026-11-23T11:00:00+13:00' } }))).toBe(true);
    expect(bus.publish(event({ id: 'evt_3', kind: 'invoice.paid' }))).toBe(true);
    expect(heard).toEqual(['evt_1', 'poll_first', 'evt_2', 'evt_3']);
  });

  it('invalidates the record and its related records before listeners hear, with the URIs', () => {
    const { bus, invalidated } = setup();
    const seen: { invalidatedThen: string[]; uris: readonly string[] }[] = [];
    bus.listen((_e, uris) => seen.push({ invalidatedThen: [...invalidated], uris }));
    bus.publish(
      event({
        kind: 'payment.recorded',
        record: { kind: 'payments', id: 3 },
        related: [{ kind: 'invoices', id: 7 }],
        data: { id: 3, created_at: 'x' },
      }),
    );
    expect(invalidated).toEqual(['payments/3', 'invoices/7']);
    expect(seen).toEqual([
      { invalidatedThen: ['payments/3', 'invoices/7'], uris: ['invoicing://payments/3', 'invoicing://invoices/7', EVENTS_FEED_URI] },
    ]);
    bus.publish(event({ kind: 'payment.recorded', record: { kind: 'payments', id: 3 }, data: { id: 3, created_at: 'x' } }));
    expect(invalidated).toHaveLength(2);
  });

  it('keeps a bounded history, newest first', () => {
    const { bus } = setup({ historySize: 3 });
    for (let i = 1; i <= 5; i++) bus.publish(event({ id: `evt_${i}`, record: { kind: 'invoices', id: i }, data: { id: i } }));
    expect(bus.recent().map((e) => e.id)).toEqual(['evt_5', 'evt_4', 'evt_3']);
  });

  it('forgets the oldest ids beyond its memory', () => {
    const { bus } = setup({ memory: 4 });
    for (let i = 1; i <= 5; i++) bus.publish(event({ id: `evt_${i}`, record: { kind: 'invoices', id: i }, data: { id: i } }));
    expect(bus.publish(event({ id: 'evt_5', record: { kind: 'invoices', id: 5 }, data: { id: 5 } }))).toBe(false);
    expect(bus.publish(event({ id: 'evt_1', record: { kind: 'invoices', id: 1 }, data: { id: 1 } }))).toBe(true);
  });

  it('isolates a listener that throws; unlisten stops delivery', () => {
    const { bus, errors } = setup();
    const heard: string[] = [];
    bus.listen(() => {
      throw new Error('listener broke');
    });
    const stop = bus.listen((e) => heard.push(e.id));
    expect(bus.publish(event())).toBe(true);
    expect(heard).toEqual(['evt_1']);
    expect(errors).toHaveLength(1);
    stop();
    bus.publish(event({ id: 'evt_2', kind: 'invoice.paid' }));
    expect(heard).toEqual(['evt_1']);
    expect(bus.recent()).toHaveLength(2);
  });
});

describe('createEventBus when invalidation fails', () => {
  it('throws, does not mark the event done, and publishes it on a retry', () => {
    let broken = true;
    const bus = createEventBus({
      invalidate: () => {
        if (broken) throw new Error('cache unavailable');
      },
    });
    const heard: string[] = [];
    bus.listen((e) => heard.push(e.id));
    expect(() => bus.publish(event())).toThrow('cache unavailable');
    expect(heard).toEqual([]);
    broken = false;
    expect(bus.publish(event())).toBe(true);
    expect(heard).toEqual(['evt_1']);
  });
});
