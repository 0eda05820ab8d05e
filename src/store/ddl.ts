// Each engine's tables, made from the tables' one definition (tables.ts) and the engine's names for the
// column types, and the columns it keeps beside each summed amount for its exact sums.
import type { Arg } from './cells.js';
import { columnNames, type KindTable, type SqlType, type Table } from './tables.js';

export interface EngineColumns {
  /** The engine's type for each column type, and for the raw JSON. */
  types: Readonly<Record<SqlType | 'raw', string>>;
  /** The columns kept beside a summed amount (named from its `as`), with their types. */
  exactColumns(as: string): readonly (readonly [name: string, type: string])[];
  /** Their cells from the amount as the service wrote it. */
  exactCells(amount: string | null): Arg[];
}

/** The typed columns with their types, then the engine's beside the summed amounts. */
function columnsDdl(table: Table, engine: EngineColumns): string {
  const typed = Object.entries(table.columns).map(([name, c]) => `${name} ${engine.types[c.type]}`);
  const exact = table.summed.flatMap(([, as]) => engine.exactColumns(as).map(([name, type]) => `${name} ${type}`));
  return [...typed, ...exact].join(', ');
}

/**
 * A kind's table: `id`, its columns, `stamp` (as the service wrote it) and `stamp_ms` (the instant it names:
 * stamps carry the business's offset, so their text does not sort across a change of it), `raw`, and `extra`
 * (more columns, written as they are).
 */
export const kindTableDdl = (table: KindTable, engine: EngineColumns, extra = ''): string =>
  `CREATE TABLE IF NOT EXISTS ${table.name} (id ${engine.types.id} PRIMARY KEY, ${columnsDdl(table, engine)}, stamp ${engine.types.text}, stamp_ms ${engine.types.id}, raw ${engine.types.raw} NOT NULL${extra})`;

/** A table of a record's items (lines, allocations): the record's id and the item's position, its key. */
export function itemTableDdl(table: Table, engine: EngineColumns, after = ''): string {
  const [owner, position] = table.key;
  return `CREATE TABLE IF NOT EXISTS ${table.name} (${owner} ${engine.types.id} NOT NULL, ${position} ${engine.types.int} NOT NULL, ${columnsDdl(table, engine)},
     PRIMARY KEY (${table.key.join(', ')}))${after}`;
}

/** The columns a row is written to, after its key: the typed ones, then the engine's beside the summed amounts. */
export const writtenColumns = (table: Table, engine: EngineColumns): string[] => [
  ...columnNames(table),
  ...table.summed.flatMap(([, as]) => engine.exactColumns(as).map(([name]) => name)),
];
