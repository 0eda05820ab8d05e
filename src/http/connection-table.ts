// The cap on a listener's open connections, kept without cutting off a client that is using its socket.
// Below the cap every connection is taken in. At the cap a newcomer waits, unread and unknown to the HTTP
// server, until a place frees: at most `maxWaitMs` (then it is closed). The address holding the fewest goes in
// first, and past `maxWaiting` waiting the newest of the address holding the most is closed, so one address
// opening connections without end keeps no one else out.
//
// Places free without a request lost: while newcomers wait, each answer to the client address holding the
// most connections says Connection: close (many sessions of one client make room before anyone else's),
// which its client reads before it would reuse the socket; from half the cap on, other answers say a short
// Keep-Alive timeout, so that clients drop their idle sockets themselves sooner (undici does). An idle socket
// is closed only once idle past the keep-alive its last answer named: closing one as its client writes a
// request on it fails that request in a way the client cannot tell from a crash, so only a client told to
// expect it meets that. Other idle sockets are left to the HTTP server's own keep-alive timeout. A request
// whose head or body is still arriving a second after it began (a slow sender), or a connection silent a
// second after it was let in, is closed to make room, with a 408 once its head is in. A connection answering
// a whole request (a call, a notification stream) is never closed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { REAL_TIMERS } from '../core/timers.js';
import { clientKey } from './client-key.js';

export interface ConnectionTableOptions {
  /** Open connections at most. */
  max: number;
  /** How long a request's body may have stalled before its connection is displaced (ms). */
  graceMs: number;
  /**
   * From half the cap on, answers say `Keep-Alive: timeout=` this (whole seconds): a client that honours it
   * drops its idle sockets sooner, and their places free.
   */
  hintMs: number;
  /** Newcomers waiting at most; past it the longest waiting is closed. */
  maxWaiting: number;
  /** How long a newcomer may wait for a place before it is closed: the headers timeout (ms). */
  maxWaitMs: number;
  /** The request timeout: a newcomer let in late still has its whole request in by then from its arrival (ms). */
  requestTimeoutMs: number;
  /** How often waiting newcomers look for a place freed by the grace passing (ms). */
  tickMs: number;
  now: () => number;
  /**
   * Behind trusted proxies, whose each request is (a connection carries its clients' requests in turn, and
   * counts as the current one's). Unset: the socket's address, known from the connection alone.
   */
  clientOf?: ((req: IncomingMessage) => string) | undefined;
}

export const DEFAULT_DISPLACE_GRACE_MS = 1_000;

/** What the cap did: displaced a quiet connection for a newcomer, or closed a newcomer that waited longest. */
export type CapAction = 'displaced' | 'refused';

interface Conn {
  socket: Socket;
  address: string;
  /** The request being received or answered, and its answer; null between requests. */
  req: IncomingMessage | null;
  res: ServerResponse | null;
  /** To be closed after its answer (Connection: close), making room for a newcomer. */
  closing: boolean;
  /** Its first request has had its answer. */
  served: boolean;
  /** Its last answer told its client a short keep-alive (hintMs): idle past that, its client was told to expect a close. */
  hinted: boolean;
  /** When it last changed state: accepted, a request began, an answer ended. */
  since: number;
  /** Bytes read from it when it last came to rest (accepted, an answer ended): more since is a request's head arriving. */
  readAtRest: number;
}

/** Closes a connection: a request still arriving is answered 408 first, as the HTTP server's own timeouts do. */
function cut(conn: Conn): void {
  const { res, socket } = conn;
  if (res === null || res.headersSent) return void socket.destroy();
  res.shouldKeepAlive = false;
  res.writeHead(408, { 'content-type': 'text/plain', connection: 'close' }).end('Request Timeout');
  socket.destroySoon();
}

export class ConnectionTable {
  private readonly open = new Map<Socket, Conn>();
  private readonly held = new Map<string, number>();
  /** Newcomers waiting for a place, the longest waiting first: when each came, from where, how to let it in. */
  private readonly waiting = new Map<Socket, { since: number; address: string; admit: () => void }>();
  private timer: unknown = null;

  constructor(
    private readonly options: ConnectionTableOptions,
    private readonly acted: (action: CapAction) => void = () => undefined,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** A new connection, not yet read: `admit` hands it to the HTTP server, now or once it has a place. */
  connected(socket: Socket, admit: () => void): void {
    if (this.open.size < this.options.max || this.displace()) {
      this.enter(socket);
      admit();
      return;
    }
    this.waiting.set(socket, { since: this.options.now(), address: clientKey(socket.remoteAddress ?? ''), admit });
    socket.once('close', () => this.waiting.delete(socket));
    this.closeAfterAnswer();
    if (this.waiting.size > this.options.maxWaiting) this.refuse(this.newestOfHeaviest());
    this.schedule();
  }

  /** Closes every newcomer still waiting (the server is closing: none will be let in). */
  dropWaiting(): void {
    for (const socket of this.waiting.keys()) socket.destroy();
    this.waiting.clear();
  }

  requestStarted(req: IncomingMessage, res: ServerResponse): void {
    const conn = this.open.get(req.socket);
    if (!conn) return;
    conn.req = req;
    conn.res = res;
    conn.since = this.options.now();
    if (this.options.clientOf) this.holdAs(conn, this.options.clientOf(req));
    // An answer the handler sent at once (fastify refuses a malformed URL so) takes no more headers.
    conn.hinted = false;
    if (!res.headersSent) this.hintKeepAlive(conn, res);
    const ended = (): void => {
      if (conn.req !== req) return;
      conn.req = null;
      conn.res = null;
      conn.served = true;
      conn.since = this.options.now();
      conn.readAtRest = conn.socket.bytesRead;
    };
    res.once('finish', ended);
    res.once('close', ended);
    if (res.writableFinished) ended();
  }

  /**
   * While newcomers wait, every answer to the address holding the most closes its connection after it. From
   * half the cap on, a short keep-alive to the others, after which their idle socket may be closed.
   */
  private hintKeepAlive(conn: Conn, res: ServerResponse): void {
    if (this.waiting.size > 0 && !conn.closing && this.heaviest(conn.address)) conn.closing = true;
    if (conn.closing) res.shouldKeepAlive = false;
    else if (this.waiting.size > 0 || this.open.size * 2 >= this.options.max) {
      res.setHeader('keep-alive', `timeout=${this.hintSeconds()}`);
      conn.hinted = true;
    }
  }

  private hintSeconds(): number {
    return Math.max(1, Math.round(this.options.hintMs / 1000));
  }

  /**
   * The HTTP server's timeouts run from when it is handed a connection: one let in after a wait is held to
   * them from its arrival instead, so that no slow sender gains the time it waited.
   */
  private keepTimeouts(socket: Socket, arrived: number): void {
    const check = (by: number, done: (conn: Conn) => boolean): void => {
      const timer = REAL_TIMERS.set(
        () => {
          const conn = this.open.get(socket);
          if (conn && !done(conn)) cut(conn);
        },
        Math.max(0, by - this.options.now()),
        true,
      );
      socket.once('close', () => REAL_TIMERS.clear(timer));
    };
    const first = (conn: Conn): IncomingMessage | null => (conn.served ? null : conn.req);
    check(arrived + this.options.maxWaitMs, (conn) => conn.served || first(conn) !== null);
    check(arrived + this.options.requestTimeoutMs, (conn) => conn.served || first(conn)?.complete === true);
  }

  /** Whether no address holds more connections than this one. */
  private heaviest(address: string): boolean {
    const held = this.held.get(address) ?? 0;
    for (const n of this.held.values()) if (n > held) return false;
    return true;
  }

  private enter(socket: Socket): void {
    const address = clientKey(socket.remoteAddress ?? '');
    this.open.set(socket, {
      socket,
      address,
      req: null,
      res: null,
      closing: false,
      served: false,
      hinted: false,
      since: this.options.now(),
      readAtRest: socket.bytesRead,
    });
    this.held.set(address, (this.held.get(address) ?? 0) + 1);
    socket.once('close', () => this.left(socket));
  }

  private holdAs(conn: Conn, address: string): void {
    if (address === conn.address) return;
    const n = (this.held.get(conn.address) ?? 1) - 1;
    if (n > 0) this.held.set(conn.address, n);
    else this.held.delete(conn.address);
    conn.address = address;
    this.held.set(address, (this.held.get(address) ?? 0) + 1);
  }

  private left(socket: Socket): void {
    if (this.remove(socket)) this.admitWaiting();
  }

  private remove(socket: Socket): boolean {
    const conn = this.open.get(socket);
    if (!conn) return false;
    this.open.delete(socket);
    const n = (this.held.get(conn.address) ?? 1) - 1;
    if (n > 0) this.held.set(conn.address, n);
    else this.held.delete(conn.address);
    return true;
  }

  private refuse(socket: Socket): void {
    this.waiting.delete(socket);
    socket.destroy();
    this.acted('refused');
  }

  private admitWaiting(): void {
    const late = this.options.now() - this.options.maxWaitMs;
    for (const [socket, { since }] of this.waiting) if (since <= late) this.refuse(socket);
    for (let next = this.lightestWaiting(); next !== null; next = this.lightestWaiting()) {
      if (this.open.size >= this.options.max && !this.displace()) return;
      const { since, admit } = this.waiting.get(next) as { since: number; admit: () => void };
      this.waiting.delete(next);
      if (next.destroyed) continue;
      this.enter(next);
      admit();
      this.keepTimeouts(next, since);
    }
  }

  /**
   * The next newcomer to let in: of the addresses waiting, the one holding the fewest connections, its longest
   * waiting. So one address opening connections without end waits behind everyone else, not they behind it.
   */
  private lightestWaiting(): Socket | null {
    let best: Socket | null = null;
    let bestHeld = Number.POSITIVE_INFINITY;
    for (const [socket, { address }] of this.waiting) {
      const held = this.held.get(address) ?? 0;
      if (held < bestHeld) {
        best = socket;
        bestHeld = held;
      }
    }
    return best;
  }

  /** The newcomer to close when too many wait: the newest of the address holding the most, open and waiting. */
  private newestOfHeaviest(): Socket {
    const waitingOf = new Map<string, number>();
    for (const { address } of this.waiting.values()) waitingOf.set(address, (waitingOf.get(address) ?? 0) + 1);
    let heaviest = '';
    let most = -1;
    for (const [address, n] of waitingOf) {
      const total = n + (this.held.get(address) ?? 0);
      if (total > most) {
        heaviest = address;
        most = total;
      }
    }
    let newest: Socket | null = null;
    for (const [socket, { address }] of this.waiting) if (address === heaviest) newest = socket;
    return newest as Socket;
  }

  /** Closes the connection the cap may take; false when there is none. */
  private displace(): boolean {
    const victim = this.victim();
    if (!victim) return false;
    // Out of the table at once, so its place goes to the newcomer now; its 'close' then finds nothing.
    this.remove(victim.socket);
    cut(victim);
    this.acted('displaced');
    return true;
  }

  /** Of the connections the cap may close for a newcomer: the heaviest address's, longest quiet. */
  private victim(): Conn | null {
    const now = this.options.now();
    let best: Conn | null = null;
    let bestHeld = 0;
    for (const conn of this.open.values()) {
      if (!this.mayClose(conn, now)) continue;
      const held = this.held.get(conn.address) ?? 0;
      if (best === null || held > bestHeld || (held === bestHeld && conn.since < best.since)) {
        best = conn;
        bestHeld = held;
      }
    }
    return best;
  }

  /**
   * Whether the cap may close a connection for a newcomer. A request still arriving, its head or its body, or a
   * connection that has sent nothing since it was let in, quiet past the grace; an idle one past the keep-alive
   * its last answer told its client (which was told to expect the close). Never a whole request being answered,
   * nor an idle socket its client was not told it may lose: that one is its client's to reuse (or to drop).
   */
  private mayClose(conn: Conn, now: number): boolean {
    if (conn.req !== null) return !conn.req.complete && conn.since <= now - this.options.graceMs;
    if (conn.socket.bytesRead > conn.readAtRest || !conn.served) return conn.since <= now - this.options.graceMs;
    return conn.hinted && conn.since <= now - this.hintSeconds() * 1000;
  }

  /**
   * Asks a connection of the address holding the most to close after its answer (Connection: close): its client
   * reads that before it would reuse the socket, so the place frees without a request lost. One for each
   * newcomer waiting; a connection whose answer has begun (a stream) cannot be asked.
   */
  private closeAfterAnswer(): void {
    let closing = 0;
    let best: Conn | null = null;
    let bestRank = -1;
    for (const conn of this.open.values()) {
      if (conn.closing) closing++;
      else if (conn.res === null || !conn.res.headersSent) {
        // The address holding the most; of its connections, one being answered now frees its place soonest.
        const rank = (this.held.get(conn.address) ?? 0) * 2 + (conn.res === null ? 0 : 1);
        if (rank > bestRank) {
          best = conn;
          bestRank = rank;
        }
      }
    }
    if (best === null || closing >= this.waiting.size) return;
    best.closing = true;
    if (best.res) best.res.shouldKeepAlive = false;
  }

  private schedule(): void {
    if (this.timer !== null) return;
    this.timer = REAL_TIMERS.set(
      () => {
        this.timer = null;
        this.admitWaiting();
        if (this.waiting.size > 0) this.schedule();
      },
      this.options.tickMs,
      true,
    );
  }
}
