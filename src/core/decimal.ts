// The project's one exact decimal, for money and quantities at any size: a whole number of units (a bigint)
// of 10^-places. Read only from the service's plain decimal strings, never through a JS number. Adding,
// subtracting, comparing and multiplying are exact; only roundHalfUp rounds, where the service's rules say so.

const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;

const POWERS: bigint[] = [1n];
/** 10^n, the first few kept. */
function tenTo(n: number): bigint {
  while (POWERS.length <= n) POWERS.push((POWERS.at(-1) as bigint) * 10n);
  return POWERS[n] as bigint;
}

export class Decimal {
  private constructor(
    /** The value in units of 10^-places: 12.50 is 1250n at 2 places. */
    readonly units: bigint,
    /** Digits after the point, as written (12.50 has 2). */
    readonly places: number,
  ) {}

  static readonly ZERO = new Decimal(0n, 0);

  /** `units` of 10^-places: (1250n, 2) is 12.50. */
  static of(units: bigint, places = 0): Decimal {
    if (!Number.isSafeInteger(places) || places < 0) throw new RangeError(`places must be a whole number from 0, not ${places}`);
    return new Decimal(units, places);
  }

  /** The decimal a plain string writes ("12.50", "-3", "0.000001"), or null for anything else (a number, "1e3", "+1", ".5"). */
  static read(text: unknown): Decimal | null {
    if (typeof text !== 'string') return null;
    const m = PLAIN.exec(text);
    if (!m) return null;
    const fraction = m[3] ?? '';
    const units = BigInt(`${m[2]}${fraction}`);
    return new Decimal(m[1] === '-' ? -units : units, fraction.length);
  }

  /** As read(), but a value that is not a plain decimal string throws a SyntaxError (as BigInt and JSON.parse do). */
  static parse(text: unknown): Decimal {
    const d = Decimal.read(text);
    if (d === null) throw new SyntaxError(`not a decimal: ${typeof text === 'string' ? JSON.stringify(text.slice(0, 60)) : typeof text}`);
    return d;
  }

  /** The exact sum of several, keeping the places of the most precise. */
  static sum(values: Iterable<Decimal | string>): Decimal {
    let total = Decimal.ZERO;
    for (const v of values) total = total.plus(v);
    return total;
  }

  plus(other: Decimal | string): Decimal {
    const [a, b, places] = aligned(this, other);
    return new Decimal(a + b, places);
  }

  minus(other: Decimal | string): Decimal {
    const [a, b, places] = aligned(this, other);
    return new Decimal(a - b, places);
  }

  /** Exact: the places of the product are the places of the two added. */
  times(other: Decimal | string): Decimal {
    const o = typeof other === 'string' ? Decimal.parse(other) : other;
    return new Decimal(this.units * o.units, this.places + o.places);
  }

  negated(): Decimal {
    return new Decimal(-this.units, this.places);
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other` (12.5 equals 12.50). */
  compare(other: Decimal | string): number {
    const [a, b] = aligned(this, other);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  equals(other: Decimal | string): boolean {
    return this.compare(other) === 0;
  }

  gt(other: Decimal | string): boolean {
    return this.compare(other) > 0;
  }

  lt(other: Decimal | string): boolean {
    return this.compare(other) < 0;
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  /** Greater than zero. */
  isPositive(): boolean {
    return this.units > 0n;
  }

  /** To `places` digits after the point, a tie away from zero (2.345 -> 2.35, -2.345 -> -2.35); as is when it has no more. */
  roundHalfUp(places: number): Decimal {
    if (this.places <= places) return this;
    const step = tenTo(this.places - places);
    const kept = this.units / step;
    const rest = this.units % step;
    const away = (rest < 0n ? -rest : rest) * 2n >= step;
    return new Decimal(away ? kept + (this.units < 0n ? -1n : 1n) : kept, places);
  }

  /** With exactly `places` digits after the point; dropping a digit that is not zero throws (it would round). */
  toFixed(places: number): string {
    if (places >= this.places) return format(this.units * tenTo(places - this.places), places);
    const step = tenTo(this.places - places);
    if (this.units % step !== 0n) throw new RangeError(`${this.toString()} cannot be written with ${places} places without rounding`);
    return format(this.units / step, places);
  }

  /** With the places it has ("12.50" stays "12.50"). */
  toString(): string {
    return format(this.units, this.places);
  }

  /** The shortest exact form: "6" for 6.000000, "2.5" for 2.500000. */
  toShortString(): string {
    let { units, places } = this;
    while (places > 0 && units % 10n === 0n) {
      units /= 10n;
      places--;
    }
    return format(units, places);
  }
}

/** Both as units at the places of the more precise. */
function aligned(a: Decimal, other: Decimal | string): [bigint, bigint, number] {
  const b = typeof other === 'string' ? Decimal.parse(other) : other;
  const places = Math.max(a.places, b.places);
  return [a.units * tenTo(places - a.places), b.units * tenTo(places - b.places), places];
}

function format(units: bigint, places: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const text = places === 0 ? whole : `${whole}.${digits.slice(digits.length - places)}`;
  return negative ? `-${text}` : text;
}
