// One 2025-era Streamable HTTP session, served straight from Node's (req, res). It keeps the rules of the
// SDK's session transport (Accept and Content-Type checks, one initialize per session, the session id and
// protocol version headers, 202 for notifications, an SSE answer per POST, one GET stream per session, 405
// for other methods) and gives the same answers, but writes each event to the socket itself. The SDK's
// Node transport turns every request into a web Request, every answer into a ReadableStream piped back into
// Node, flushes the headers in a write of their own, and checks every outgoing result against a zod schema
// to learn that it is a result: about a third of a session call's CPU. This one classifies what the SDK's
// Protocol sends by its shape (the Protocol built it), sends the headers with the first event, and holds
// one keep-alive timer for the session rather than one per request. There is no event store (resumability
// is not offered), as before.

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isJsonContentType,
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { every, REAL_TIMERS } from '../core/timers.js';
import { sendRpcError } from '../http/json-rpc-errors.js';
import { ClientRefusal } from './sdk-errors.js';

const MAX_BATCH_SIZE = 100;

export interface SessionTransportOptions {
  newSessionId: () => string;
  onSessionInitialized: (sessionId: string) => void;
  onSessionClosed: (sessionId: string) => void;
  /** A stream quiet this long gets a comment, so that proxies do not close it (15 s). */
  keepAliveMs?: number | undefined;
  /** The GET stream ends after this long, telling the client to come back after `retryMs`; none if unset. */
  streamLifetimeMs?: number | undefined;
  retryMs?: number | undefined;
}

/** The SSE field that tells a client how long to wait before it opens a stream again. */
export const retryField = (ms: number): string => `retry: ${Math.round(ms)}\n\n`;
const DEFAULT_RETRY_MS = 1_000;

/** An SSE stream: the session's GET stream, or one POST's answer. */
interface Stream {
  res: ServerResponse;
  /** Its headers have gone out (a POST's go with its first event). */
  started: boolean;
  lastWrite: number;
  /** The client is gone: what is still sent for it is dropped. */
  gone: boolean;
}

/** One POST's SSE answer: open until every request it carried has its response. */
interface Exchange extends Stream {
  waiting: Set<RequestId>;
}

type Headers = Record<string, string>;

const sseHeaders = (sessionId: string | undefined): Headers => ({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
});

const event = (message: JSONRPCMessage): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

const jsonError = sendRpcError;

/** Parsed messages only: parseJSONRPCMessage has held each to one of the four JSON-RPC shapes. */
const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => 'method' in m && 'id' in m;
const isInitialize = (m: JSONRPCMessage): boolean => isRequest(m) && m.method === 'initialize';
/** What the Protocol sends: a response carries a result or an error, never a method. */
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => !('method' in m) && ('result' in m || 'error' in m);

export class NodeSessionTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private initialized = false;
  private closed = false;
  private standalone: Stream | null = null;
  private readonly exchanges = new Map<RequestId, Exchange>();
  private stopKeepAlive: (() => void) | undefined;
  private lifetime: unknown;
  private readonly keepAliveMs: number;

  constructor(private readonly options: SessionTransportOptions) {
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
  }

  async start(): Promise<void> {
    // Nothing to do until a session opens: a refused initialize must leave no timer holding this transport.
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.supported = versions;
  }

  /** Answers one HTTP request of this session; `body` is the parsed JSON of a POST. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) return jsonError(res, 404, -32001, 'Session not found');
    switch (req.method) {
      case 'POST':
        return this.post(req, res, body);
      case 'GET':
        return this.get(req, res);
      case 'DELETE':
        return this.delete(req, res);
      default:
        this.onerror?.(new ClientRefusal('Method not allowed.', 405));
        return jsonError(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    const requestId = response ? message.id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (response) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      if (this.standalone) this.write(this.standalone, event(message));
      return;
    }
    const exchange = this.exchanges.get(requestId);
    if (!exchange) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    if (!response) return this.write(exchange, event(message));
    this.exchanges.delete(requestId);
    exchange.waiting.delete(requestId);
    if (exchange.gone) {
      this.fail(
        `Response for request ID ${String(requestId)} is undeliverable: per-request stream is disconnected and no eventStore is configured`,
      );
      return;
    }
    this.write(exchange, event(message), exchange.waiting.size === 0);
  }

  /** Whether the session's GET stream is open. */
  get streaming(): boolean {
    return this.standalone !== null;
  }

  /** Ends the GET stream with a retry hint, so that the client opens it again (here or elsewhere). */
  endStream(): void {
    const stream = this.standalone;
    if (!stream) return;
    this.standalone = null;
    REAL_TIMERS.clear(this.lifetime);
    if (!stream.gone) stream.res.end(retryField(this.options.retryMs ?? DEFAULT_RETRY_MS));
    stream.gone = true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopKeepAlive?.();
    REAL_TIMERS.clear(this.lifetime);
    const open = new Set<ServerResponse>([...this.exchanges.values()].map((e) => e.res));
    if (this.standalone) open.add(this.standalone.res);
    this.exchanges.clear();
    this.standalone = null;
    for (const res of open) {
      if (!res.headersSent) res.writeHead(200, sseHeaders(this.sessionId));
      res.end();
    }
    this.onclose?.();
  }

  private async post(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.refuse(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(req.headers['content-type'] ?? null)) {
      return this.refuse(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    if (body === undefined) return this.refuse(res, 400, -32700, 'Parse error: Invalid JSON');
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      return this.refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = (Array.isArray(body) ? body : [body]).map((m) => parseJSONRPCMessage(m));
    } catch (error) {
      this.onerror?.(error as Error);
      return jsonError(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    if (this.closed) return jsonError(res, 404, -32001, 'Session not found');
    if (messages.some(isInitialize)) {
      if (this.initialized && this.sessionId !== undefined)
        return this.refuse(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return this.refuse(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.options.newSessionId();
      this.initialized = true;
      this.stopKeepAlive = every(() => this.ping(), this.keepAliveMs, true);
      this.options.onSessionInitialized(this.sessionId);
    } else if (!this.validSession(req, res) || !this.validVersion(req, res)) {
      return;
    }
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      res.writeHead(202).end();
      for (const message of messages) this.onmessage?.(message);
      return;
    }
    const exchange: Exchange = { res, started: false, lastWrite: Date.now(), gone: false, waiting: new Set(requests.map((r) => r.id)) };
    for (const { id } of requests) this.exchanges.set(id, exchange);
    res.once('close', () => {
      if (exchange.waiting.size > 0) exchange.gone = true;
    });
    for (const message of messages) this.onmessage?.(message);
  }

  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      return this.refuse(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    }
    if (!this.validSession(req, res) || !this.validVersion(req, res)) return;
    if (this.standalone) return this.refuse(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    const stream: Stream = { res, started: true, lastWrite: Date.now(), gone: false };
    this.standalone = stream;
    res.writeHead(200, sseHeaders(this.sessionId));
    res.flushHeaders();
    const lifetime = this.options.streamLifetimeMs;
    if (lifetime !== undefined) {
      this.lifetime = REAL_TIMERS.set(() => this.standalone === stream && this.endStream(), lifetime, true);
    }
    res.once('close', () => {
      stream.gone = true;
      if (this.standalone !== stream) return;
      this.standalone = null;
      REAL_TIMERS.clear(this.lifetime);
    });
  }

  private async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.validSession(req, res) || !this.validVersion(req, res)) return;
    try {
      if (this.sessionId !== undefined) this.options.onSessionClosed(this.sessionId);
      res.writeHead(200).end();
    } finally {
      await this.close();
    }
  }

  private validSession(req: IncomingMessage, res: ServerResponse): boolean {
    const id = req.headers['mcp-session-id'];
    const refusal: [number, number, string] | null = !this.initialized
      ? [400, -32000, 'Bad Request: Server not initialized']
      : !id
        ? [400, -32000, 'Bad Request: Mcp-Session-Id header is required']
        : id !== this.sessionId
          ? [404, -32001, 'Session not found']
          : null;
    if (refusal) this.refuse(res, ...refusal);
    return refusal === null;
  }

  private validVersion(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version !== 'string' || this.supported.includes(version)) return true;
    this.refuse(
      res,
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.supported.join(', ')})`,
    );
    return false;
  }

  private refuse(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new ClientRefusal(message, status));
    jsonError(res, status, code, message);
  }

  private fail(message: string): void {
    this.onerror?.(new Error(message));
  }

  /**
   * Writes to an open SSE stream, its headers first if they have not gone yet; `last` ends it. A POST
   * answered by one event alone sends headers and event in one write to the socket.
   */
  private write(stream: Stream, text: string, last = false): void {
    if (stream.gone) return;
    if (!stream.started) stream.res.writeHead(200, sseHeaders(this.sessionId));
    stream.started = true;
    stream.lastWrite = Date.now();
    if (last) stream.res.end(text);
    else stream.res.write(text);
  }

  /** A comment on every stream quiet for a keep-alive period, so that proxies do not close it. */
  private ping(): void {
    const quiet = Date.now() - this.keepAliveMs;
    const streams = new Set<Stream>(this.exchanges.values());
    if (this.standalone) streams.add(this.standalone);
    for (const stream of streams) if (stream.lastWrite <= quiet) this.write(stream, ': keepalive\n\n');
  }
}
