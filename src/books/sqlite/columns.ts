// The typed columns every engine has (../sql/columns.ts), and SQLite's own: each summed invoice amount also
// as whole units of its last decimal place and those places, for exact sums in SQL (exact-sums.ts).
import type { Rec } from '../record.js';
import {
  type Cell,
  SUMMED_INVOICE_AMOUNTS,
  summedAmountsOf,
  TYPED_COLUMNS,
  INTEGER_COLUMNS as TYPED_INTEGERS,
  typedCells,
} from '../sql/columns.js';
import type { MirroredKind } from '../types.js';
import { unitsOf } from './exact-sums.js';

const UNIT_COLUMNS = SUMMED_INVOICE_AMOUNTS.flatMap((a) => {
  const name = a === 'tax_total' ? 'tax' : a;
  return [`${name}_units`, `${name}_places`];
});

/** The typed columns of each kind's table, in order (after `id`; `stamp` and `raw` follow them). */
export const COLUMNS: Record<MirroredKind, readonly string[]> = {
  ...TYPED_COLUMNS,
  invoices: [...TYPED_COLUMNS.invoices, ...UNIT_COLUMNS],
};

/** Columns that hold integers (the rest hold text). */
export const INTEGER_COLUMNS = new Set([...TYPED_INTEGERS, ...UNIT_COLUMNS]);

export function cellsOf(kind: MirroredKind, r: Rec): Cell[] {
  const cells = typedCells(kind, r);
  return kind === 'invoices' ? [...cells, ...summedAmountsOf(r).flatMap(unitsOf)] : cells;
}
