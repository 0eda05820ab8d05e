import { describe, expect, it } from 'vitest';
import { readingLinesMessage } from '../../src/books/lines-for-answer.js';
import { pollIntervalFor } from '../../src/mcp/tasks/task-runs.js';
import { waitingWords } from '../../src/mcp/tasks/task-words.js';

describe("a task's status while it reads lines", () => {
  it('says how many of how many, and about how long at the key’s pace', () => {
    expect(readingLinesMessage(312, 1543, 11 * 60_000 - 500)).toBe(
      "reading the lines of 312 of 1,543 invoices, about 11 minutes at your key's limit",
    );
    expect(readingLinesMessage(0, 200, 100_000)).toBe("reading the lines of 0 of 200 invoices, about 100 seconds at your key's limit");
    expect(readingLinesMessage(10, 200, null)).toBe('reading the lines of 10 of 200 invoices');
  });

  it('writes one invoice and one second in the singular', () => {
    expect(readingLinesMessage(0, 1, 20)).toBe("reading the lines of 0 of 1 invoice, about 1 second at your key's limit");
    expect(readingLinesMessage(1, 2, 900)).toBe("reading the lines of 1 of 2 invoices, about 1 second at your key's limit");
  });

  it('says when it waits on the key’s limit, for how long, and the key’s pace', () => {
    expect(waitingWords(40_200, { limit: 120, windowMs: 60_000 })).toEqual([
      "waiting for the key's limit: resumes in 41 s (120 calls a minute)",
      40_200,
    ]);
    expect(waitingWords(3_000, { limit: 20, windowMs: 5_000 })[0]).toBe("waiting for the key's limit: resumes in 3 s (20 calls per 5 s)");
    // A window learnt from two windows' openings is a few ms over its length.
    expect(waitingWords(900, { limit: 100, windowMs: 2_004 })[0]).toBe("waiting for the key's limit: resumes in 1 s (100 calls per 2 s)");
    expect(waitingWords(900, { limit: 120, windowMs: 60_012 })[0]).toBe("waiting for the key's limit: resumes in 1 s (120 calls a minute)");
    expect(waitingWords(900, { limit: 120, windowMs: 60_140 })[0]).toBe("waiting for the key's limit: resumes in 1 s (120 calls a minute)");
    expect(waitingWords(900, { limit: 120, windowMs: 250 })[0]).toBe("waiting for the key's limit: resumes in 1 s (120 calls per 0.3 s)");
  });

  it('asks to be polled at half the time it expects to take, a quarter second to five seconds', () => {
    expect(pollIntervalFor(null)).toBe(2_000);
    expect(pollIntervalFor(100)).toBe(250);
    expect(pollIntervalFor(1_200)).toBe(600);
    expect(pollIntervalFor(41_000)).toBe(5_000);
  });
});
