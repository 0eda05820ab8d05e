import { describe, expect, it } from 'vitest';
import { readingLinesMessage } from '../../src/books/lines-for-answer.js';

describe("a task's status while it reads lines", () => {
  it('says how many of how many, and about how long at the key’s limit', () => {
    expect(readingLinesMessage(312, 1543, 120, 60_000)).toBe(
      "reading the lines of 312 of 1,543 invoices, about 11 minutes at your key's limit",
    );
    expect(readingLinesMessage(0, 200, 120, 60_000)).toBe("reading the lines of 0 of 200 invoices, about 100 seconds at your key's limit");
    expect(readingLinesMessage(10, 200, null, 60_000)).toBe('reading the lines of 10 of 200 invoices');
  });

  it('writes one invoice and one second in the singular', () => {
    expect(readingLinesMessage(0, 1, 60, 60_000)).toBe("reading the lines of 0 of 1 invoice, about 1 second at your key's limit");
    expect(readingLinesMessage(1, 2, 60, 60_000)).toBe("reading the lines of 1 of 2 invoices, about 1 second at your key's limit");
  });
});
