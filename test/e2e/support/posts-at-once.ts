// Requests sent at once, as a double click or two processes would send them: every connection is opened
// first, then each request is written whole in the same turn of the event loop, so the server has every
// request in hand before it answers any. The server closes each connection after its answer.
import { connect, type Socket } from 'node:net';
import { target } from './raw-http.js';

export interface Post {
  url: string | URL;
  headers: Record<string, string>;
  body: string;
}

export interface Answer {
  status: number;
  /** The answer's headers, names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** An HTTP/1.1 response read whole: its status, headers and body, chunked or not. */
function parseResponse(raw: Buffer): Answer {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  let body = text.slice(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    let joined = '';
    for (let at = 0; ; ) {
      const eol = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.slice(at, eol), 16);
      if (!size) break;
      joined += body.slice(eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    body = joined;
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]), headers, body };
}

const connected = (url: string | URL): Promise<Socket> => {
  const { host, port } = target(String(url));
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => resolve(socket));
    socket.once('error', reject);
  });
};

const requestOf = (post: Post): string => {
  const url = new URL(post.url);
  const headers = { host: url.host, ...post.headers, connection: 'close', 'content-length': String(Buffer.byteLength(post.body)) };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST ${url.pathname}${url.search} HTTP/1.1\r\n${head.join('')}\r\n${post.body}`;
};

/** Sends every post at once; the answers in the order given. */
export async function postsAtOnce(posts: readonly Post[]): Promise<Answer[]> {
  const sockets = await Promise.all(posts.map((post) => connected(post.url)));
  const answers = sockets.map(
    (socket) =>
      new Promise<Answer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('error', reject);
        socket.once('close', () => resolve(parseResponse(Buffer.concat(chunks))));
      }),
  );
  for (const [i, socket] of sockets.entries()) socket.write(requestOf(posts[i] as Post));
  return Promise.all(answers);
}
