// The tasks table (MCP Tasks): a task's state and result live in the mirror's store, so every process on a
// shared store answers for it, and one whose process died is taken over by another. The same SQL on every
// engine; times are epoch ms. A task is run by one holder at a time, who beats while it works: a task whose
// beat is older than the staleness a caller gives, or whose holder is known gone, is taken by the first process
// that asks (one UPDATE wins).

import { type Arg, type Cell, type Cells, num, str } from './cells.js';
import type { StoredTask, TaskTable } from './types.js';

/** Runs one statement and gives its rows as arrays (RETURNING rows for writes). */
export type TaskQuery = (sql: string, args?: readonly Arg[]) => Promise<Cells[]>;

export const TASKS_TABLE = (big: string, text: string): string =>
  `CREATE TABLE IF NOT EXISTS tasks (id ${text} PRIMARY KEY, owner ${text} NOT NULL, tool ${text} NOT NULL, args ${text} NOT NULL,
     status ${text} NOT NULL, message ${text}, result ${text}, created_ms ${big} NOT NULL, updated_ms ${big} NOT NULL,
     expires_ms ${big} NOT NULL, holder ${text}, beat_ms ${big} NOT NULL)`;

const COLUMNS = 'id, owner, tool, args, status, message, result, created_ms, updated_ms, expires_ms, holder, beat_ms';

function taskOf(row: Cells): StoredTask {
  const [id, owner, tool, args, status, message, result, created, updated, expires, holder, beat] = row as Cell[];
  return {
    id: str(id),
    owner: str(owner),
    tool: str(tool),
    args: JSON.parse(str(args)) as Record<string, unknown>,
    status: str(status) as StoredTask['status'],
    message: message === null ? null : str(message),
    result: result === null ? null : (JSON.parse(str(result)) as Record<string, unknown>),
    createdMs: num(created),
    updatedMs: num(updated),
    expiresMs: num(expires),
    holder: holder === null ? null : str(holder),
    beatMs: num(beat),
  };
}

export function taskTable(query: TaskQuery): TaskTable {
  return {
    async create(task) {
      await query('DELETE FROM tasks WHERE expires_ms < ?', [task.createdMs]);
      await query(`INSERT INTO tasks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        task.id,
        task.owner,
        task.tool,
        JSON.stringify(task.args),
        task.status,
        task.message,
        task.result === null ? null : JSON.stringify(task.result),
        task.createdMs,
        task.updatedMs,
        task.expiresMs,
        task.holder,
        task.beatMs,
      ]);
    },
    async get(id, nowMs) {
      const [row] = await query(`SELECT ${COLUMNS} FROM tasks WHERE id = ? AND expires_ms >= ?`, [id, nowMs]);
      return row ? taskOf(row) : null;
    },
    async working(owner, nowMs) {
      const rows = await query(`SELECT ${COLUMNS} FROM tasks WHERE owner = ? AND status = 'working' AND expires_ms >= ?`, [owner, nowMs]);
      return rows.map(taskOf);
    },
    async beat(id, holder, message, nowMs) {
      const [row] =
        message === null
          ? await query('UPDATE tasks SET beat_ms = ? WHERE id = ? AND holder = ? AND expires_ms >= ? RETURNING status', [
              nowMs,
              id,
              holder,
              nowMs,
            ])
          : await query(
              'UPDATE tasks SET beat_ms = ?, message = ?, updated_ms = ? WHERE id = ? AND holder = ? AND expires_ms >= ? RETURNING status',
              [nowMs, message, nowMs, id, holder, nowMs],
            );
      return row ? (str(row[0]) as StoredTask['status']) : null;
    },
    async finish(id, holder, status, result, nowMs) {
      const rows = await query(
        `UPDATE tasks SET status = ?, result = ?, message = NULL, updated_ms = ?, beat_ms = ?
         WHERE id = ? AND holder = ? AND status = 'working' RETURNING id`,
        [status, result === null ? null : JSON.stringify(result), nowMs, nowMs, id, holder],
      );
      return rows.length > 0;
    },
    async cancel(id, owner, nowMs) {
      const rows = await query(
        `UPDATE tasks SET status = 'cancelled', message = NULL, updated_ms = ?
         WHERE id = ? AND owner = ? AND status = 'working' AND expires_ms >= ? RETURNING id`,
        [nowMs, id, owner, nowMs],
      );
      return rows.length > 0;
    },
    async claim(id, holder, { staleBeforeMs, gone }, nowMs) {
      // A gone holder's task is taken while that holder still has it: of two processes that saw it gone, one wins.
      const rows = await query(
        `UPDATE tasks SET holder = ?, beat_ms = ?, updated_ms = ?
         WHERE id = ? AND status = 'working' AND (beat_ms < ? OR holder = ?) AND expires_ms >= ? RETURNING id`,
        [holder, nowMs, nowMs, id, staleBeforeMs, gone, nowMs],
      );
      return rows.length > 0;
    },
  };
}
