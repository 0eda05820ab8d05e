// The project's exact decimal against literal answers and against the tests' own BigInt arithmetic
// (test/support/exact.ts) on amounts of up to 40 digits: nothing rounds but roundHalfUp, nothing that is
// not a plain decimal string is read.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { Exact } from '../support/exact.js';

/** A decimal string of `whole` digits before the point and `places` after, from a seeded generator. */
function amount(next: () => number, whole: number, places: number, signed: boolean): string {
  const digits = (n: number): string => Array.from({ length: n }, () => String(Math.floor(next() * 10))).join('');
  const sign = signed && next() < 0.5 ? '-' : '';
  return `${sign}${digits(whole)}${places > 0 ? `.${digits(places)}` : ''}`;
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('Decimal', () => {
  it('adds two payments of 22 significant digits exactly (decimal.js at 20 digits gave ...890.00)', () => {
    expect(Decimal.parse('12345678901234567890.12').plus('0.01').toString()).toBe('12345678901234567890.13');
    expect(Decimal.sum(['99999999999999999999.99', '0.01', '-0.00']).toString()).toBe('100000000000000000000.00');
  });

  it('reads only plain decimal strings, keeping the places they were written with', () => {
    expect(['12.50', '-3', '0.000001', '007.10'].map((t) => Decimal.parse(t).toString())).toEqual(['12.50', '-3', '0.000001', '7.10']);
    expect(Decimal.parse('12.50').places).toBe(2);
    for (const bad of ['1e3', '+1', '.5', '5.', ' 1', '1 ', '1,000.00', '', '-', 'NaN', '0x10', '١٢'])
      expect(Decimal.read(bad), JSON.stringify(bad)).toBeNull();
    for (const bad of [12.5, 10n, null, undefined, {}]) expect(Decimal.read(bad)).toBeNull();
    expect(() => Decimal.parse('1e3')).toThrow(SyntaxError);
  });

  it('adds, subtracts, multiplies and compares as the tests own arithmetic does, at up to 40 digits', () => {
    const next = seeded(21);
    for (let n = 0; n < 400; n++) {
      const a = amount(next, 1 + Math.floor(next() * 34), Math.floor(next() * 7), true);
      const b = amount(next, 1 + Math.floor(next() * 34), Math.floor(next() * 7), true);
      const [da, ta] = [Decimal.parse(a), Exact.of(a)];
      expect(Exact.of(da.plus(b).toString()).equals(ta.plus(b)), `${a} + ${b}`).toBe(true);
      expect(Exact.of(da.minus(b).toString()).equals(ta.minus(b)), `${a} - ${b}`).toBe(true);
      expect(Exact.of(da.times(b).toString()).equals(ta.times(b)), `${a} x ${b}`).toBe(true);
      expect(da.compare(b), `${a} ? ${b}`).toBe(ta.comparedTo(b));
    }
  });

  it('sums keep the places of the most precise amount, and 12.5 equals 12.50', () => {
    expect(Decimal.parse('1.5').plus('2.25').toString()).toBe('3.75');
    expect(Decimal.parse('1.50').minus('1.5').toString()).toBe('0.00');
    expect(Decimal.parse('12.5').equals('12.50')).toBe(true);
    expect(Decimal.parse('-0.01').isPositive()).toBe(false);
    expect(Decimal.parse('0.00').isZero()).toBe(true);
  });

  it('rounds half away from zero only when asked (the service line rule), as the tests own rounding does', () => {
    const cases: [string, string][] = [
      ['2.345', '2.35'],
      ['2.344999', '2.34'],
      ['-2.345', '-2.35'],
      ['0.005', '0.01'],
      ['-0.004', '0.00'],
      ['1.2', '1.2'],
      ['123456789012345678901234.565', '123456789012345678901234.57'],
    ];
    for (const [value, rounded] of cases) {
      expect(Decimal.parse(value).roundHalfUp(2).toString()).toBe(rounded);
      expect(Decimal.parse(value).roundHalfUp(2).toFixed(2)).toBe(Exact.of(value).toFixed(2));
    }
    const next = seeded(7);
    for (let n = 0; n < 200; n++) {
      const v = amount(next, 1 + Math.floor(next() * 25), 2 + Math.floor(next() * 8), true);
      expect(Decimal.parse(v).roundHalfUp(2).toFixed(2), v).toBe(Exact.of(v).toFixed(2));
    }
  });

  it('writes with more places by padding, and refuses to write fewer when that would round', () => {
    expect(Decimal.parse('5').toFixed(2)).toBe('5.00');
    expect(Decimal.parse('5.1000').toFixed(2)).toBe('5.10');
    expect(() => Decimal.parse('5.105').toFixed(2)).toThrow(RangeError);
    expect(Decimal.parse('-0.5').toFixed(1)).toBe('-0.5');
    expect(['6.000000', '2.500000', '-1.250', '120', '0.000'].map((t) => Decimal.parse(t).toShortString())).toEqual([
      '6',
      '2.5',
      '-1.25',
      '120',
      '0',
    ]);
    expect(Decimal.of(-1250n, 2).toString()).toBe('-12.50');
    expect(Decimal.of(5n, 3).toString()).toBe('0.005');
  });
});
