// Background work (the books mirror: libsql, its file, the API client, the first sync) waits until the
// server has answered its client's opening requests: loading it costs the main thread tens of milliseconds,
// which `initialize` and `tools/list` would otherwise wait for. It starts once no message has come in or
// gone out for a short moment after the last one, after a second when no client speaks at all, or after a
// few seconds at the latest when a client never pauses. A tool that needs the mirror earlier opens it itself.
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/server';
import { REAL_TIMERS, type Timers } from '../core/timers.js';
import { isHealthPath } from '../http/health.js';

export const QUIET_MS = 200;
/** With no traffic at all since the server began to serve. */
export const SILENT_MS = 1_000;
export const LATEST_MS = 3_000;

export interface WhenQuiet {
  /** A message came in or went out: the quiet moment starts again. */
  traffic(): void;
  /** Never runs (the server is stopping). */
  cancel(): void;
}

export interface QuietOptions {
  quietMs?: number;
  silentMs?: number;
  latestMs?: number;
  timers?: Timers;
}

export function whenQuiet(run: () => void, options: QuietOptions = {}): WhenQuiet {
  const { quietMs = QUIET_MS, silentMs = SILENT_MS, latestMs = LATEST_MS, timers = REAL_TIMERS } = options;
  let done = false;
  let quiet: unknown = null;
  const fire = (): void => {
    if (done) return;
    done = true;
    timers.clear(quiet);
    timers.clear(latest);
    run();
  };
  const latest = timers.set(fire, latestMs, true);
  quiet = timers.set(fire, silentMs, true);
  return {
    traffic() {
      if (done) return;
      timers.clear(quiet);
      quiet = timers.set(fire, quietMs, true);
    },
    cancel() {
      done = true;
      timers.clear(quiet);
      timers.clear(latest);
    },
  };
}

/** Counts what a stdio transport reads and writes as traffic, until the returned function stops it. */
export function watchStdio(transport: Transport, stdin: Readable, quiet: WhenQuiet): () => void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    quiet.traffic();
    return send(message, options);
  };
  const onData = (): void => quiet.traffic();
  stdin.on('data', onData);
  return () => {
    transport.send = send;
    stdin.off('data', onData);
  };
}

/** Counts each HTTP request, and its end, as traffic (a load balancer's health checks are not), until the returned function stops it. */
export function watchHttp(server: HttpServer, quiet: WhenQuiet): () => void {
  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    if (isHealthPath(request.url ?? '')) return;
    quiet.traffic();
    response.once('close', () => quiet.traffic());
  };
  server.on('request', onRequest);
  return () => void server.off('request', onRequest);
}
