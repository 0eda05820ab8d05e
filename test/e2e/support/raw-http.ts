// HTTP as a client that misbehaves would speak it: raw bytes on a socket, so a test can send half a
// request, a wrong Host, or a body the headers promise but never deliver, and see when the server hangs up.
import { connect, type Socket } from 'node:net';

export interface RawExchange {
  /** The status of the first response, or null when the server closed without one. */
  status: number | null;
  /** Everything the server sent. */
  text: string;
  /** Milliseconds from connecting to the server closing the connection. */
  closedAfterMs: number;
}

export function target(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) };
}

/** Sends `bytes` and waits (up to `waitMs`) for the server to close; the socket stays open from our side. */
export function rawExchange(url: string, bytes: string | Buffer, waitMs: number): Promise<RawExchange> {
  const { host, port } = target(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, host, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open past ${waitMs} ms; it sent: ${JSON.stringify(text.slice(0, 200))}`));
    }, waitMs);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, text, closedAfterMs: Date.now() - started });
    });
  });
}

/** A POST's request line and headers for /mcp, promising `length` bytes of JSON. */
export function postHead(url: string, length: number, headers: Record<string, string> = {}): string {
  const u = new URL(url);
  const all: Record<string, string> = {
    host: u.host,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': String(length),
    ...headers,
  };
  return `POST ${u.pathname} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
}
