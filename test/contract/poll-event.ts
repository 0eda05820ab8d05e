// A books event as the sync's polling makes it, numbered, for store tests that write and read events.
import type { BooksEvent } from '../../src/events/event.js';

export const pollEvent = (n: number): BooksEvent => ({
  id: `poll_${n}`,
  kind: 'invoice.sent',
  createdAt: '2026-01-01T00:00:00+13:00',
  source: 'poll',
  record: { kind: 'invoices', id: n },
  related: [],
  data: { id: n },
});
