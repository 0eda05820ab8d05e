// What a test of a task taken over after its process was killed checks at the end: the task completed with
// the whole answer, and each invoice's lines were read once, save those the killed process had been answered
// for but not yet stored (at most its calls in flight at the kill).
import { expect } from 'vitest';
import type { Json } from '../../contract/sandbox-http.js';
import type { TestSandbox } from '../../support/sandbox.js';
import { lineReads } from './line-reads.js';

/** How many line reads a server makes side by side: at most these are answered but not stored at a kill. */
const SIDE_BY_SIDE = 4;

/** The completed task's structured answer, once checked whole: every invoice of `rows` with its lines. */
export function wholeAnswer(done: Json, rows: Json[]): Json {
  expect(done.status, JSON.stringify(done).slice(0, 600)).toBe('completed');
  const result = done.result as Json;
  expect(result.isError, JSON.stringify(result).slice(0, 600)).toBeFalsy();
  const answer = result.structuredContent as Json;
  expect(answer.lines).toEqual({ with_lines: rows.length, invoices: rows.length });
  expect(result.content[0].text).not.toContain('PARTIAL');
  return answer;
}

/** Each invoice of `rows` read, and read twice only where the killed process had read it and not stored it. */
export async function expectReadOnceAcrossKill(
  sb: TestSandbox,
  keyId: string,
  rows: Json[],
  atKill: { read: Set<number>; stored: Set<number> },
): Promise<void> {
  const reads = await lineReads(sb, keyId);
  const inRange = new Set(rows.map((i) => i.id as number));
  const twice = [...new Set(reads.filter((id, n) => reads.indexOf(id) !== n))];
  const lost = [...atKill.read].filter((id) => inRange.has(id) && !atKill.stored.has(id));
  expect(lost.length).toBeLessThanOrEqual(SIDE_BY_SIDE);
  for (const id of twice) expect(lost, `invoice ${id} read twice`).toContain(id);
  for (const id of inRange) expect(reads, `invoice ${id} read`).toContain(id);
}
