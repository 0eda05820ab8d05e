// How often the poller can go round the four lists within its share of the rate limit.
import { describe, expect, it } from 'vitest';
import { roundSeconds } from '../../src/events/poller.js';

describe('roundSeconds', () => {
  it('is the interval when the share allows one call per list each interval', () => {
    expect(roundSeconds(60, 120, 0.1, 60)).toBe(60); // 12 calls a minute, 4 a round
    expect(roundSeconds(1, 6000, 0.1, 60)).toBe(1); // 600 calls a minute
  });

  it('is longer when the limit is too small for the interval', () => {
    expect(roundSeconds(5, 120, 0.1, 60)).toBe(20); // 12 calls a minute: 3 rounds a minute at most
    expect(roundSeconds(1, 40, 0.1, 3)).toBe(3); // 4 calls per 3 s: one round
  });

  it('still allows one call per window when the share rounds down to none', () => {
    expect(roundSeconds(60, 5, 0.1, 60)).toBe(240);
  });
});
