// stdio for serveStdio, reading newline-delimited JSON-RPC ourselves so that bad input never ends the
// session: a line over the size limit is skipped (only its first and last bytes are kept, to find its id)
// and answered -32600; a line that is not JSON is answered -32700, and JSON that is not a JSON-RPC message
// (a wrong `jsonrpc`, a batch) -32600, whenever an id can be found to answer; otherwise it is dropped.
// Each kind of bad input is logged once a minute with a count. Good messages pass to the SDK unchanged.

import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, parseJSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import type { ThrottledLog } from '../log/throttle.js';

export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const KEPT_EDGE_BYTES = 1024;
const NEWLINE = 0x0a;

type Id = string | number;

/** The top-level id of a message we cannot parse whole, from its first or last bytes; null if not found. */
export function sniffId(head: string, tail: string): Id | null {
  const value = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
  const m =
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"[^"]*"\s*,\s*)?"id"\s*:\s*${value}`).exec(head) ??
    new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  if (!m) return null;
  try {
    return JSON.parse(m[1] as string) as Id;
  } catch {
    return null;
  }
}

/**
 * Whether the value says it is JSON-RPC 2.0. What does not is refused without the schema's parse, whose
 * error (built, with its issues and stack, for every line) made a flood of such lines cost ~150 µs each.
 */
const claimsJsonRpc2 = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';

function parsedOrNull(value: unknown): JSONRPCMessage | null {
  try {
    return parseJSONRPCMessage(value);
  } catch {
    return null;
  }
}

const idOf = (value: unknown): Id | null => {
  const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

/** A line being read: whole while small, only its edges once it passes the limit. */
class Line {
  parts: Buffer[] = [];
  bytes = 0;
  head = '';
  tail: Buffer = Buffer.alloc(0);

  oversized = false;

  add(piece: Buffer, max: number): void {
    const before = this.bytes;
    this.bytes += piece.length;
    if (this.bytes <= max) return void this.parts.push(piece);
    if (before <= max) {
      const whole = Buffer.concat([...this.parts, piece]);
      this.head = whole.subarray(0, KEPT_EDGE_BYTES).toString('utf8');
      this.parts = [];
      this.oversized = true;
      piece = whole.subarray(Math.max(0, whole.length - KEPT_EDGE_BYTES));
    }
    const joined = Buffer.concat([this.tail, piece]);
    this.tail = joined.subarray(Math.max(0, joined.length - KEPT_EDGE_BYTES));
  }
}

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private line = new Line();
  private closed = false;

  constructor(
    private readonly log: ThrottledLog,
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxMessageBytes = STDIO_MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdout.on('error', this.onStreamError);
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      this.line.add(chunk.subarray(start, nl), this.maxMessageBytes);
      const done = this.line;
      this.line = new Line();
      this.take(done);
      start = nl + 1;
    }
    if (start < chunk.length) this.line.add(chunk.subarray(start), this.maxMessageBytes);
  };

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);
  private readonly onEnd = (): void => void this.close();

  private take(line: Line): void {
    if (line.oversized) {
      const id = sniffId(line.head, line.tail.toString('utf8'));
      this.log(
        'stdio-oversized',
        'warn',
        { bytes: line.bytes, answered: id !== null },
        `stdio: skipped a message over ${this.maxMessageBytes} bytes`,
      );
      if (id !== null)
        this.refuse(
          id,
          -32600,
          `Message too large: ${line.bytes} bytes, over the ${this.maxMessageBytes}-byte limit. Send less in one request.`,
        );
      return;
    }
    const text = Buffer.concat(line.parts).toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const id = sniffId(text.slice(0, KEPT_EDGE_BYTES), text.slice(-KEPT_EDGE_BYTES));
      this.log('stdio-not-json', 'warn', { bytes: line.bytes, answered: id !== null }, 'stdio: a line that is not JSON');
      if (id !== null) this.refuse(id, -32700, 'Parse error: the line is not valid JSON.');
      return;
    }
    this.deliver(value);
  }

  private deliver(value: unknown): void {
    if (Array.isArray(value)) {
      this.log('stdio-batch', 'warn', { items: value.length }, 'stdio: a JSON-RPC batch (not supported)');
      for (const item of value) {
        const id = idOf(item);
        if (id !== null) this.refuse(id, -32600, 'Invalid request: batches are not supported; send one JSON-RPC message per line.');
      }
      return;
    }
    const message = claimsJsonRpc2(value) ? parsedOrNull(value) : null;
    if (message === null) {
      const id = idOf(value);
      this.log('stdio-not-jsonrpc', 'warn', { answered: id !== null }, 'stdio: a line that is not a JSON-RPC 2.0 message');
      if (id !== null)
        this.refuse(
          id,
          -32600,
          'Invalid request: not a JSON-RPC 2.0 message (it needs "jsonrpc": "2.0" and a "method", or a "result" or "error").',
        );
      return;
    }
    this.onmessage?.(message);
  }

  private refuse(id: Id, code: number, message: string): void {
    this.send({ jsonrpc: '2.0', id, error: { code, message } }).catch((err: unknown) =>
      this.onerror?.(err instanceof Error ? err : new Error(String(err))),
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('stdio transport is closed'));
    // The write's own callback rather than an 'error' and a 'drain' listener per message: with the client
    // slow to read, thousands of answers wait at once, and taking their listeners off one by one grew with
    // the square of their number.
    return new Promise((resolve, reject) => {
      this.stdout.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.pause();
    this.line = new Line();
    this.onclose?.();
  }
}
