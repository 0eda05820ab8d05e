// Connections that send slowly (slowloris): each opens with the first bytes of a request (headers cut short,
// or whole headers promising a body that never comes) and then trickles a byte now and then, so no idle
// timeout ends it; the test sees when the server closes each and what it answered.
import { connect, type Socket } from 'node:net';
import { target } from './raw-http.js';

export interface Slow<Kind extends string = string> {
  kind: Kind;
  socket: Socket;
  openedAt: number;
  closedAt: number | null;
  answer: string;
}

const TRICKLE_MS = 400;

function openSlow<Kind extends string>(url: string, kind: Kind, opening: string): Promise<Slow<Kind>> {
  const { host, port } = target(url);
  return new Promise((resolve) => {
    const slow: Slow<Kind> = { kind, socket: connect(port, host), openedAt: Date.now(), closedAt: null, answer: '' };
    slow.socket.setEncoding('latin1');
    slow.socket.on('data', (chunk: string) => (slow.answer += chunk));
    slow.socket.on('error', () => undefined);
    slow.socket.on('close', () => {
      slow.closedAt = Date.now();
      resolve(slow);
    });
    slow.socket.once('connect', () => {
      // The server's timeouts run from the connection it accepted, not from our call to connect().
      slow.openedAt = Date.now();
      slow.socket.write(opening);
      resolve(slow);
    });
  });
}

export interface SlowCrowd<Kind extends string> {
  slows: Slow<Kind>[];
  /** Waits until the server has closed every one, or `deadline` (ms since the epoch) passes. */
  closed(deadline: number): Promise<void>;
  /** Stops trickling and drops whatever is still open. */
  end(): void;
  /** The longest any one was held, from its connection to its close. */
  longestMs(): number;
}

/**
 * Opens `count` slow connections to `url`, in batches of 100, the i-th of kind `kinds[i % kinds.length]`
 * opened with `opening(kind)`; each kind whose name starts with "headers" trickles a header letter, any other
 * a body's space.
 */
export async function slowCrowd<Kind extends string>(
  url: string,
  kinds: readonly Kind[],
  opening: (kind: Kind) => string,
  count: number,
): Promise<SlowCrowd<Kind>> {
  const slows: Slow<Kind>[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, (_, j) => kinds[(i + j) % kinds.length] as Kind);
    slows.push(...(await Promise.all(batch.map((kind) => openSlow(url, kind, opening(kind))))));
  }
  const ticker = setInterval(() => {
    for (const s of slows) if (s.closedAt === null && !s.socket.destroyed) s.socket.write(s.kind.startsWith('headers') ? 'x' : ' ');
  }, TRICKLE_MS);
  return {
    slows,
    async closed(deadline) {
      while (slows.some((s) => s.closedAt === null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    },
    end() {
      clearInterval(ticker);
      for (const s of slows) s.socket.destroy();
    },
    longestMs: () => Math.max(...slows.map((s) => (s.closedAt ?? Date.now()) - s.openedAt)),
  };
}
