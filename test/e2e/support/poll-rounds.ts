// How far a server's mirror has polled, as the sandbox's request log tells it: its rounds are list calls with
// updated_since (a kind's first, full read has none), one per kind. A test waits for rounds instead of for
// a guess of how long they take.
import type { TestSandbox } from '../../support/sandbox.js';

/**
 * Resolves once the key's calls include `rounds` incremental reads of every one of `lists` (paths such as
 * /api/v1/invoices) logged at or after `since` (epoch ms, by the sandbox's clock); rejects after `ms`.
 */
export async function untilRounds(
  sb: TestSandbox,
  keyId: string,
  lists: readonly string[],
  rounds: number,
  since = 0,
  ms = 25_000,
): Promise<void> {
  // A wait for a state, not a measure: on a busy machine the rounds come later.
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const paths = (await sb.requests(keyId))
      .filter((r) => r.method === 'GET' && r.path.includes('updated_since=') && Date.parse(r.at) >= since)
      .map((r) => r.path.split('?')[0]);
    if (lists.every((list) => paths.filter((p) => p === list).length >= rounds)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the mirror made no ${rounds} incremental rounds of ${lists.join(', ')} within ${ms / 1000} s`);
}
