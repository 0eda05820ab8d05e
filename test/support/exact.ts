// The tests' own exact decimal for ground truth: BigInt arithmetic written here, apart from the code under test
// (src/core/decimal.ts), so that a fault in one cannot hide in the other. A value is digits over a power of ten.

type Value = Exact | string | number | bigint;

export class Exact {
  private constructor(
    private readonly digits: bigint,
    private readonly scale: number,
  ) {}

  /** A decimal string ("-12.50"), a bigint, or a whole JS number; anything else throws. */
  static of(v: Value): Exact {
    if (v instanceof Exact) return v;
    if (typeof v === 'bigint') return new Exact(v, 0);
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new Error(`ground truth takes whole numbers or strings, not ${v}`);
      return new Exact(BigInt(v), 0);
    }
    const negative = v.startsWith('-');
    const [whole = '', fraction = '', ...rest] = (negative ? v.slice(1) : v).split('.');
    if (rest.length > 0 || !/^\d+$/.test(whole) || !/^\d*$/.test(fraction) || v.endsWith('.')) throw new Error(`not a decimal: ${v}`);
    const digits = BigInt(whole + fraction);
    return new Exact(negative ? -digits : digits, fraction.length);
  }

  static max(...values: Value[]): Exact {
    return values.map(Exact.of).reduce((a, b) => (a.gt(b) ? a : b));
  }

  /** The digits of this at `scale` places (never fewer than it has). */
  private at(scale: number): bigint {
    return this.digits * 10n ** BigInt(scale - this.scale);
  }

  private pair(v: Value): [bigint, bigint, number] {
    const o = Exact.of(v);
    const scale = Math.max(this.scale, o.scale);
    return [this.at(scale), o.at(scale), scale];
  }

  plus(v: Value): Exact {
    const [a, b, scale] = this.pair(v);
    return new Exact(a + b, scale);
  }

  minus(v: Value): Exact {
    const [a, b, scale] = this.pair(v);
    return new Exact(a - b, scale);
  }

  times(v: Value): Exact {
    const o = Exact.of(v);
    return new Exact(this.digits * o.digits, this.scale + o.scale);
  }

  neg(): Exact {
    return new Exact(-this.digits, this.scale);
  }

  comparedTo(v: Value): number {
    const [a, b] = this.pair(v);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  equals(v: Value): boolean {
    return this.comparedTo(v) === 0;
  }

  gt(v: Value): boolean {
    return this.comparedTo(v) > 0;
  }

  greaterThan(v: Value): boolean {
    return this.gt(v);
  }

  lt(v: Value): boolean {
    return this.comparedTo(v) < 0;
  }

  /** Half away from zero to `places`, as the service's line arithmetic rounds. */
  roundHalfUp(places: number): Exact {
    if (this.scale <= places) return this;
    const unit = 10n ** BigInt(this.scale - places);
    const size = this.digits < 0n ? -this.digits : this.digits;
    const rounded = (size + unit / 2n) / unit;
    return new Exact(this.digits < 0n ? -rounded : rounded, places);
  }

  /** Written with `places` digits after the point (rounded half up when it has more); no argument: shortest. */
  toFixed(places?: number): string {
    if (places === undefined) return this.shortest();
    const r = this.roundHalfUp(places);
    const size = (r.digits < 0n ? -r.digits : r.digits) * 10n ** BigInt(places - r.scale);
    const text = size.toString().padStart(places + 1, '0');
    const written = places === 0 ? text : `${text.slice(0, -places)}.${text.slice(-places)}`;
    return r.digits < 0n ? `-${written}` : written;
  }

  private shortest(): string {
    const full = this.toFixed(this.scale);
    return full.includes('.') ? full.replace(/\.?0+$/, '') : full;
  }

  toString(): string {
    return this.shortest();
  }
}

export const exact = (v: Value): Exact => Exact.of(v);
