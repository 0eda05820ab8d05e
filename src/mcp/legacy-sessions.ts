// 2025-era HTTP clients that open with `initialize` get a session: one server instance and transport that
// live until the client ends them (DELETE), they sit idle too long, or the server stops. A session is
// what lets resources/subscribe reach the client over its GET stream; while that stream is open the
// session is not idle, however long the books stay quiet. Past the cap, the least recently used session
// that has no open stream and has been quiet a while makes room; when none has, the new `initialize` is
// refused with 503 and Retry-After, and no session in use is ever closed. Everything else (2026-07-28
// traffic, and 2025-era requests without a session) is served per request by createMcpHandler.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import type { ServerFactory } from './server.js';
import { NodeSessionTransport } from './session-transport.js';

export interface LegacySessionOptions {
  maxSessions: number;
  idleMs: number;
  /** A session seen within this long is in use: it is never closed to make room. */
  recentMs: number;
  /** How long a stream may stay quiet before it gets a keep-alive comment (15 s). */
  keepAliveMs?: number;
}

interface Session {
  transport: NodeSessionTransport;
  lastSeen: number;
  /** GET streams open now (the client listening for notifications). */
  openStreams: number;
}

const jsonRpcError = (res: ServerResponse, status: number, code: number, message: string): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
};

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  /** Sessions being opened now (an initialize not yet answered), counted against the cap. */
  private opening = 0;

  constructor(
    private readonly factory: ServerFactory,
    private readonly options: LegacySessionOptions,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(options.idleMs, 60_000));
    this.sweeper.unref();
  }

  /** Whether this request belongs here: it names a session, or opens one. */
  claims(headers: IncomingMessage['headers'], method: string, body: unknown): boolean {
    if (headers['mcp-session-id'] !== undefined) return true;
    // A plain look at the method first: the SDK's schema check runs only on what could be an initialize.
    return method === 'POST' && (body as { method?: unknown } | null)?.method === 'initialize' && isInitializeRequest(body);
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.sessions.get(id);
      if (!session) return jsonRpcError(res, 404, -32001, 'Session not found: it ended or the server restarted. Initialize again.');
      session.lastSeen = Date.now();
      if (req.method === 'GET') {
        session.openStreams++;
        res.once('close', () => {
          session.openStreams--;
          session.lastSeen = Date.now();
        });
      }
      return session.transport.handleRequest(req, res, body);
    }
    if (this.sessions.size + this.opening >= this.options.maxSessions && !this.makeRoom()) {
      res.setHeader('retry-after', String(this.retryAfterSeconds()));
      return jsonRpcError(
        res,
        503,
        -32000,
        `This server already holds ${this.options.maxSessions} sessions in use: try again later, or end sessions you no longer need.`,
      );
    }
    const transport: NodeSessionTransport = new NodeSessionTransport({
      newSessionId: () => randomUUID(),
      onSessionInitialized: (sid) => void this.sessions.set(sid, { transport, lastSeen: Date.now(), openStreams: 0 }),
      onSessionClosed: (sid) => void this.sessions.delete(sid),
      keepAliveMs: this.options.keepAliveMs,
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    this.opening++;
    try {
      await this.factory({ era: 'legacy', lifetime: 'connection' }).connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      this.opening--;
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.transport.close()));
  }

  private sweep(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.openStreams === 0 && session.lastSeen < cutoff) {
        this.sessions.delete(id);
        void session.transport.close().catch(() => undefined);
      }
    }
  }

  /** Closes the least recently seen session not in use; false when every session is in use. */
  private makeRoom(): boolean {
    const cutoff = Date.now() - this.options.recentMs;
    let oldest: [string, Session] | null = null;
    for (const entry of this.sessions) {
      const [, s] = entry;
      if (s.openStreams === 0 && s.lastSeen < cutoff && (oldest === null || s.lastSeen < oldest[1].lastSeen)) oldest = entry;
    }
    if (oldest === null) return false;
    this.sessions.delete(oldest[0]);
    void oldest[1].transport.close().catch(() => undefined);
    return true;
  }

  /** When the first session not streaming stops counting as in use (a minute when all are streaming). */
  private retryAfterSeconds(): number {
    let soonest = Infinity;
    for (const s of this.sessions.values()) if (s.openStreams === 0) soonest = Math.min(soonest, s.lastSeen + this.options.recentMs);
    const wait = soonest === Infinity ? 60_000 : soonest - Date.now();
    return Math.max(1, Math.ceil(wait / 1000));
  }
}
