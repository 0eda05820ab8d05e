// `invoicing-mcp` over stdio from the built bundle, started inside the test worker (dist/bin/serve-in-process.mjs)
// on a pair of streams instead of a process's stdin and stdout: the same flags, environment, line transport and
// server, without a Node start for each. The client's end writes and reads newline-delimited JSON-RPC as the
// SDKs' stdio transports do. Tests about the process itself (its stdout, its exit, its banner, its loads)
// spawn it: `stdioCommand`.
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { LinkedServer } from './clients.js';
import { type Env, SERVE_IN_PROCESS, serverEnv } from './server.js';

type Message = Record<string, unknown>;

/** The client's end of a stdio session on two streams: one JSON-RPC message per line, each way. */
class StreamClientTransport {
  onmessage?: (message: Message) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private pending = '';
  private closed = false;

  constructor(
    private readonly toServer: Writable,
    private readonly fromServer: Readable,
  ) {}

  async start(): Promise<void> {
    this.fromServer.setEncoding('utf8');
    this.fromServer.on('data', (chunk: string) => {
      const lines = (this.pending + chunk).split('\n');
      this.pending = lines.pop() ?? '';
      for (const line of lines) this.deliver(line);
    });
    this.fromServer.on('end', () => void this.close());
  }

  private deliver(line: string): void {
    try {
      this.onmessage?.(JSON.parse(line) as Message);
    } catch (err) {
      this.onerror?.(new Error(`not a JSON-RPC line on the server's stdout: ${line.slice(0, 200)} (${String(err)})`));
    }
  }

  async send(message: Message): Promise<void> {
    if (this.closed) throw new Error('stdio transport is closed');
    await new Promise<void>((resolve, reject) =>
      this.toServer.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve())),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.toServer.end();
    this.onclose?.();
  }
}

export interface StdioHere extends LinkedServer {
  /** What the server wrote to stderr: its banner, notices and log lines. */
  stderr(): string;
}

/** `invoicing-mcp [args]` over stdio inside the worker; pass `{ linked: it }` to connectClient. */
export async function stdioHere(args: string[] = [], env: Env = {}): Promise<StdioHere> {
  const { serveInProcess } = (await import(SERVE_IN_PROCESS)) as typeof import('../../../src/cli/serve-in-process.js');
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let stderr = '';
  const write = (text: string) => void (stderr += text.endsWith('\n') ? text : `${text}\n`);
  const serving = await serveInProcess(args, serverEnv(env), { stderr: write, logDestination: { write }, stdin, stdout });
  return {
    transport: new StreamClientTransport(stdin, stdout),
    stderr: () => stderr,
    close: () => serving.stop(),
  };
}
