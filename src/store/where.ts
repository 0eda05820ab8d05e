// The WHERE clauses of the mirror's queries, built once for every engine: each engine's dialect says how it
// compares letter case aside and what receivable means in its columns. Arguments are `?` placeholders in
// order (an engine that numbers them rewrites them).

import type { Arg } from './cells.js';
import type { InvoiceFilter, TextMatch } from './types.js';

export interface Dialect {
  /** The expression equals the next argument, letter case aside. */
  equalsNoCase(expression: string): string;
  /** The column matches the next argument, a LIKE pattern escaped with `\`, letter case aside. */
  likeNoCase(column: string): string;
  /** Not draft or void, and a balance above zero (the owed answers' rule). */
  receivable(prefix: string): string;
}

export class Where {
  readonly parts: string[] = [];
  readonly args: Arg[] = [];
  constructor(
    private readonly dialect: Dialect,
    private readonly prefix = '',
  ) {}
  add(sql: string, ...args: Arg[]): void {
    this.parts.push(sql);
    this.args.push(...args);
  }
  in(column: string, values: readonly (string | number)[] | undefined, negate = false): void {
    if (!values) return;
    if (values.length === 0) return void (negate ? undefined : this.parts.push('1 = 0'));
    this.add(`${this.prefix}${column} ${negate ? 'NOT IN' : 'IN'} (${values.map(() => '?').join(', ')})`, ...values);
  }
  /** One of the identifiers equals the text, or the name holds every word (see TextMatch). */
  match(m: TextMatch | undefined, identifiers: readonly string[]): void {
    // Letter case is folded for ASCII only on every engine (SQLite folds no more): a text beyond it is left
    // to the caller's own comparison.
    if (!m || !/^[\x20-\x7e]*$/.test(m.equals)) return;
    const equal = identifiers.map((c) => this.dialect.equalsNoCase(`trim(${c})`));
    const ascii = m.words.filter((w) => /^[\x20-\x7e]+$/.test(w));
    const named = ascii.length === 0 ? '1 = 1' : ascii.map(() => this.dialect.likeNoCase('name')).join(' AND ');
    this.add(
      `(${[...equal, `(${named})`].join(' OR ')})`,
      ...identifiers.map(() => m.equals.trim()),
      ...ascii.map((w) => `%${w.replace(/[\\%_]/g, '\\$&')}%`),
    );
  }
  toString(): string {
    return this.parts.length > 0 ? ` WHERE ${this.parts.join(' AND ')}` : '';
  }
}

export function invoiceWhere(dialect: Dialect, filter: InvoiceFilter, prefix = ''): Where {
  const w = new Where(dialect, prefix);
  const c = (column: string): string => `${prefix}${column}`;
  if (filter.issuedFrom) w.add(`${c('issue_date')} >= ?`, filter.issuedFrom);
  if (filter.issuedTo) w.add(`${c('issue_date')} <= ?`, filter.issuedTo);
  w.in('status', filter.statuses);
  w.in('status', filter.excludeStatuses, true);
  if (filter.receivable) w.add(dialect.receivable(prefix));
  if (filter.customerId !== undefined) w.add(`${c('customer_id')} = ?`, filter.customerId);
  if (filter.currency !== undefined) w.add(`${c('currency')} = ?`, filter.currency);
  if (filter.number !== undefined) w.add(dialect.equalsNoCase(c('number')), filter.number.trim());
  return w;
}
