import { describe, expect, it } from 'vitest';
import { addDays, formatTimestamp, isCalendarDate, localDate, parseUpdatedSince, zonedMidnight } from '../../src/sandbox/time.js';

const NZ = 'Pacific/Auckland';

describe('time in the business zone', () => {
  it('prints +13:00 in the New Zealand summer and +12:00 in its winter', () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 15, 0, 0, 0), NZ)).toBe('2026-01-15T13:00:00+13:00');
    expect(formatTimestamp(Date.UTC(2026, 6, 15, 0, 0, 0), NZ)).toBe('2026-07-15T12:00:00+12:00');
  });

  it('takes the local calendar date, not the UTC one', () => {
    expect(localDate(Date.UTC(2026, 0, 15, 12, 0, 0), NZ)).toBe('2026-01-16');
  });

  it('finds local midnight across daylight saving changes', () => {
    expect(new Date(zonedMidnight('2026-01-01', NZ)).toISOString()).toBe('2025-12-31T11:00:00.000Z');
    expect(new Date(zonedMidnight('2026-07-01', NZ)).toISOString()).toBe('2026-06-30T12:00:00.000Z');
    // 5 April 2026: clocks go back at 03:00; midnight is still at +13:00.
    expect(new Date(zonedMidnight('2026-04-05', NZ)).toISOString()).toBe('2026-04-04T11:00:00.000Z');
  });

  // The offset is kept per hour once read: every second must still print as the zone database says, at and
  // around each change of offset, in zones whose offsets and changes are not whole hours.
  it.each(['Pacific/Auckland', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns'])(
    'prints every instant as the zone database does: %s',
    (zone) => {
      const parts = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        timeZoneName: 'longOffset',
      });
      const expected = (ms: number): string => {
        const p = Object.fromEntries(parts.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
        const offset = p.timeZoneName === 'GMT' ? '+00:00' : (p.timeZoneName as string).slice(3);
        return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset}`;
      };
      // Each 3 h 7 min 13 s through 2026, and each second of the three minutes around every change of offset.
      const steps: number[] = [];
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 11_233_000) steps.push(ms + 999);
      const instants = [...steps];
      const offsetAt = (ms: number): string => expected(ms).slice(-6);
      for (let i = 1; i < steps.length; i++) {
        let [a, b] = [steps[i - 1] as number, steps[i] as number];
        if (offsetAt(a) === offsetAt(b)) continue;
        while (b - a > 1000) {
          const mid = a + Math.floor((b - a) / 2000) * 1000;
          if (offsetAt(mid) === offsetAt(a)) a = mid;
          else b = mid;
        }
        for (let ms = b - 90_000; ms <= b + 90_000; ms += 1000) instants.push(ms);
      }
      expect(instants.length).toBeGreaterThan(steps.length);
      const wrong = instants.filter((ms) => formatTimestamp(ms, zone) !== expected(ms));
      expect(wrong.map((ms) => `${new Date(ms).toISOString()}: ${formatTimestamp(ms, zone)} not ${expected(ms)}`)).toEqual([]);
    },
  );

  it('knows real calendar dates', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-13-01')).toBe(false);
    expect(isCalendarDate('2026-1-01')).toBe(false);
    expect(addDays('2026-12-25', 14)).toBe('2027-01-08');
  });
});

describe('updated_since', () => {
  it('reads a date as local midnight', () => {
    expect(parseUpdatedSince('2026-01-01', NZ)).toBe(Date.UTC(2025, 11, 31, 11, 0, 0));
  });

  it('reads timestamps with Z and with offsets', () => {
    expect(parseUpdatedSince('2026-01-01T00:00:00Z', NZ)).toBe(Date.UTC(2026, 0, 1));
    expect(parseUpdatedSince('2026-01-01T13:00:00+13:00', NZ)).toBe(Date.UTC(2026, 0, 1));
    expect(parseUpdatedSince('2026-01-01T13:00:00.250+13:00', NZ)).toBe(Date.UTC(2026, 0, 1) + 250);
  });

  it('refuses an offset whose + arrived as a space, and other malformed values', () => {
    for (const bad of ['2026-01-01T13:00:00 13:00', '2026-01-01T13:00:00', 'yesterday', '2026-02-30', '2026-01-01T25:00:00Z', '']) {
      expect(parseUpdatedSince(bad, NZ), bad).toBeNull();
    }
  });
});
