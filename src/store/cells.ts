// What every engine's queries take and give: arguments, and rows as arrays of cells in the SELECT's order.
export type Cell = string | number | boolean | null;
export type Cells = Cell[];
/** A query's argument. */
export type Arg = string | number | null;

/** A cell read back as text ('' for null), as text or null, or as a number. */
export const str = (v: Cell | undefined): string => (v === null || v === undefined ? '' : String(v));
export const strOrNull = (v: Cell | undefined): string | null => (v === null || v === undefined ? null : String(v));
export const num = (v: Cell | undefined): number => Number(v);
