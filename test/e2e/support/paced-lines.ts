// The ground truth's reads of invoice lines under a tight rate limit: a few at a time, and a call the
// service answered 429 asked again after the wait it names.
import { get, type Json, type Session } from '../../contract/sandbox-http.js';

export async function pacedLines(session: Session, ids: readonly number[]): Promise<Map<number, Json[]>> {
  const out = new Map<number, Json[]>();
  const queue = [...ids];
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      for (;;) {
        const reply = await get(session, `/api/v1/invoices/${id}`);
        if (reply.status === 200) {
          out.set(id, reply.body.data.items);
          break;
        }
        if (reply.status !== 429) throw new Error(`GET invoice ${id}: ${reply.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return out;
}
