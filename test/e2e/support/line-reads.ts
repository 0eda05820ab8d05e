// What the tasks' tests count at the sandbox: the server's reads of single invoices (their lines), as answered.
// A call the service refused (429: the pacer's probe of a spent window, which it then waits out and makes
// again) read no lines.
import { plus, thisQuarter } from '../../answers/ground-truth.js';
import type { TestSandbox } from '../../support/sandbox.js';

/** The ids of the invoices whose lines this key read, in the order the service logged the reads. */
export async function lineReads(sb: TestSandbox, keyId: string): Promise<number[]> {
  return (await sb.requests(keyId))
    .filter((r) => r.method === 'GET' && r.status === 200 && /^\/api\/v1\/invoices\/\d+$/.test(r.path))
    .map((r) => Number(r.path.split('/').at(-1)));
}

export function lastQuarter(today: string): { from: string; to: string } {
  const { from } = thisQuarter(today);
  return { from: thisQuarter(plus(from, -1)).from, to: plus(from, -1) };
}
