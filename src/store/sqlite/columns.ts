// SQLite's names for the column types, and its columns for exact sums: each summed amount also as whole units
// of its last decimal place and those places (exact-sums.ts), which SQL adds exactly.
import type { EngineColumns } from '../ddl.js';
import { unitsOf } from './exact-sums.js';

export const SQLITE_COLUMNS: EngineColumns = {
  types: { text: 'TEXT', id: 'INTEGER', int: 'INTEGER', raw: 'TEXT' },
  exactColumns: (as) => [
    [`${as}_units`, 'INTEGER'],
    [`${as}_places`, 'INTEGER'],
  ],
  exactCells: unitsOf,
};
