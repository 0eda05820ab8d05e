// A request held in flight at the server for as long as the test likes: its head is sent with
// `Expect: 100-continue`, and once the server has taken it in (it answers 100 Continue) the body waits until
// the test sends it. So "a request in flight when something happens" is a fact, not a race.
import { request } from 'node:http';

export interface HeldRequest {
  /** Sends the body; the answer, or a rejection when the connection was cut instead. */
  finish(): Promise<{ status: number; text: string }>;
}

/** POSTs `body` to `url` once the server took the head in; resolves when it has. */
export async function heldPost(url: URL, headers: Record<string, string>, body: string): Promise<HeldRequest> {
  const req = request(url, {
    method: 'POST',
    headers: { ...headers, expect: '100-continue', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
  });
  answered.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    req.once('continue', resolve);
    req.once('error', reject);
    req.flushHeaders();
  });
  return {
    finish: () => {
      req.end(body);
      return answered;
    },
  };
}
