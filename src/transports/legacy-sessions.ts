// 2025-era HTTP clients that open with `initialize` get a session: one server instance and transport that
// live until the client ends them (DELETE), they sit idle too long, or the server stops. A session is in
// use while a request of it is being answered or its GET stream is open (the client listening for its
// subscriptions, however quiet the books are); one with neither for the idle timeout ends, since the
// SDK's client leaves without DELETE. A new `initialize` first clears sessions past their idle timeout, and
// is refused with 503 and Retry-After only when the cap is full of sessions in use or quiet for less than
// that; one client address may hold only its share of sessions and of GET streams (429 past it), and a GET
// stream ends after its lifetime with a retry hint, so that no client holds a place forever. Everything
// else (2026-07-28 traffic, and 2025-era requests without a session) is served per request by createMcpHandler.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthInfo, isInitializeRequest } from '@modelcontextprotocol/server';
import { every } from '../core/timers.js';
import { SERVER_REFUSAL, sendRpcError } from '../http/json-rpc-errors.js';
import { clientOf, PerClient, refuseOverShare } from '../http/per-client.js';
import type { ServerFactory } from '../mcp/server.js';
import { NodeSessionTransport } from './session-transport.js';

export interface LegacySessionOptions {
  maxSessions: number;
  /** Sessions one client address may hold (every session when unset). */
  maxSessionsPerClient?: number;
  /** A session with no request in flight and no open stream ends after this long. */
  idleMs: number;
  /** Open streams per client address, shared with the 2026-07-28 subscription streams; none held if unset. */
  streams?: PerClient;
  /** A GET stream ends after this long with a retry hint; unset = as long as the client keeps it. */
  streamLifetimeMs?: number;
  /** How long a client is told to wait before it opens a stream again (ms). */
  retryMs?: number;
  /** How long a stream may stay quiet before it gets a keep-alive comment (15 s). */
  keepAliveMs?: number;
  /** Our clock (ms). */
  now?: () => number;
}

interface Session {
  transport: NodeSessionTransport;
  client: string;
  /** Hosted mode: the grant that opened it; only a token of that grant reaches it. */
  owner: string | undefined;
  lastSeen: number;
  /** GET streams open now (the client listening for notifications). */
  openStreams: number;
  /** Requests being answered now. */
  inFlight: number;
}

/** Who holds a hosted session: the grant behind its token (none on the desktop paths). */
const ownerOf = (auth: AuthInfo | undefined): string | undefined => {
  const grant = auth?.extra?.grantId;
  return typeof grant === 'string' ? grant : undefined;
};

const inUse = (s: Session): boolean => s.openStreams > 0 || s.inFlight > 0;
const seconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly stopSweeping: () => void;
  private readonly now: () => number;
  private readonly perClient: PerClient;
  private lastSweep = -Infinity;
  /** Sessions being opened now (an initialize not yet answered), counted against the cap. */
  private opening = 0;

  constructor(
    private readonly factory: ServerFactory,
    private readonly options: LegacySessionOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.perClient = new PerClient(options.maxSessionsPerClient ?? options.maxSessions);
    this.stopSweeping = every(() => this.sweep(), Math.min(options.idleMs, 60_000), true);
  }

  /** Whether this request belongs here: it names a session, or opens one. */
  claims(headers: IncomingMessage['headers'], method: string, body: unknown): boolean {
    if (headers['mcp-session-id'] !== undefined) return true;
    // A plain look at the method first: the SDK's schema check runs only on what could be an initialize.
    return method === 'POST' && (body as { method?: unknown } | null)?.method === 'initialize' && isInitializeRequest(body);
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, auth?: AuthInfo): Promise<void> {
    const owner = ownerOf(auth);
    // Between the sweeper's rounds too: a flood of initialize calls finds the room idle sessions left.
    if (this.now() - this.lastSweep >= Math.min(1_000, this.options.idleMs)) this.sweep();
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.sessions.get(id);
      if (!session || session.owner !== owner) {
        return sendRpcError(res, 404, -32001, 'Session not found: it ended or the server restarted. Initialize again.');
      }
      return this.serve(session, req, res, body);
    }
    const client = clientOf(req);
    if (this.sessions.size + this.opening >= this.options.maxSessions) {
      return sendRpcError(
        res,
        503,
        SERVER_REFUSAL,
        `This server already holds ${this.options.maxSessions} sessions in use: try again later, or end sessions you no longer need.`,
        { 'retry-after': seconds(this.untilRoom(() => true)) },
      );
    }
    if (!this.perClient.take(client)) {
      return refuseOverShare(
        res,
        `${this.perClient.max} sessions (end one with DELETE)`,
        this.untilRoom((s) => s.client === client),
      );
    }
    const transport: NodeSessionTransport = new NodeSessionTransport({
      newSessionId: () => randomUUID(),
      onSessionInitialized: (sid) =>
        void this.sessions.set(sid, { transport, client, owner, lastSeen: this.now(), openStreams: 0, inFlight: 0 }),
      onSessionClosed: (sid) => this.forget(sid),
      keepAliveMs: this.options.keepAliveMs,
      streamLifetimeMs: this.options.streamLifetimeMs,
      retryMs: this.options.retryMs,
    });
    transport.onclose = () => {
      if (transport.sessionId) this.forget(transport.sessionId);
    };
    this.opening++;
    try {
      await this.factory({ era: 'legacy', lifetime: 'connection', auth }).connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      this.opening--;
      // The client's place was taken above; an initialize refused opened no session to hold it.
      if (transport.sessionId === undefined) this.perClient.give(client);
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Ends every open GET stream with a retry hint (the server is stopping). */
  endStreams(): void {
    for (const session of this.sessions.values()) session.transport.endStream();
  }

  async close(): Promise<void> {
    this.stopSweeping();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.transport.close()));
  }

  private serve(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const seen = (): void => void (session.lastSeen = this.now());
    seen();
    if (req.method === 'POST') {
      session.inFlight++;
      res.once('close', () => {
        session.inFlight--;
        seen();
      });
    }
    if (req.method === 'GET' && !session.transport.streaming) {
      const streams = this.options.streams;
      const client = clientOf(req);
      if (streams && !streams.take(client)) {
        return Promise.resolve(refuseOverShare(res, `${streams.max} open streams`, this.options.retryMs ?? 1_000));
      }
      session.openStreams++;
      res.once('close', () => {
        session.openStreams--;
        streams?.give(client);
        seen();
      });
    }
    return session.transport.handleRequest(req, res, body);
  }

  private forget(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.perClient.give(session.client);
  }

  /** Closes every session past its idle timeout. */
  private sweep(): void {
    const now = this.now();
    this.lastSweep = now;
    const cutoff = now - this.options.idleMs;
    for (const [id, session] of this.sessions) {
      if (!inUse(session) && session.lastSeen <= cutoff) {
        this.forget(id);
        void session.transport.close().catch(() => undefined);
      }
    }
  }

  /** Time until the first of these sessions not in use reaches its idle timeout (the timeout when all are in use). */
  private untilRoom(which: (s: Session) => boolean): number {
    let soonest = Infinity;
    for (const s of this.sessions.values()) if (which(s) && !inUse(s)) soonest = Math.min(soonest, s.lastSeen + this.options.idleMs);
    return soonest === Infinity ? this.options.idleMs : soonest - this.now();
  }
}
