// What the SDK refuses before our code sees a request (malformed JSON-RPC, arguments too deep, a wrong
// protocol version) goes to the log: at debug for a client's mistake, at warn for anything else, at most a
// line per kind a minute. A kind is the error's name and code, and its status or first words, so that one
// client's repeated mistakes do not hide other errors in the count of theirs. The message is cut short and the
// request body is never logged.
import type { LogSink } from '../log/deferred-logger.js';
import { throttledLog } from '../log/throttle.js';

const CLIENT_MISTAKES = new Set([-32700, -32600, -32601, -32602]);

/** A request the HTTP transport refused for the client's own fault, with its 4xx status. */
export class ClientRefusal extends Error {
  override name = 'ClientRefusal';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function codeOf(err: Error): number | string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' || typeof code === 'string' ? code : undefined;
}

export function sdkErrorReporter(logger: Pick<LogSink, 'debug' | 'info' | 'warn'>): (err: Error) => void {
  const log = throttledLog(logger);
  return (err) => {
    const code = codeOf(err);
    const status = err instanceof ClientRefusal ? err.status : undefined;
    const clientMistake =
      status !== undefined ||
      (typeof code === 'number' ? CLIENT_MISTAKES.has(code) : /invalid|parse|unsupported|not found|malformed/i.test(err.message));
    // Letters only: what follows the first words may be the client's own input, each a kind of its own.
    const words = /^[A-Za-z ]{0,40}/.exec(err.message)?.[0].trim();
    const kind = `${err.name}:${code ?? ''}:${status ?? words}`;
    log(
      kind,
      clientMistake ? 'debug' : 'warn',
      { code, status, problem: err.message.slice(0, 300) },
      'MCP request refused or failed in the protocol layer',
    );
  };
}

/** `factory` with each server instance's own errors (those its transport reports) sent to `report`. */
export function reportingFactory<U, S extends { server: { onerror?: ((err: Error) => void) | undefined } }>(
  factory: (unit: U) => S,
  report: (err: Error) => void,
) {
  return (unit: U): S => {
    const instance = factory(unit);
    instance.server.onerror = report;
    return instance;
  };
}
