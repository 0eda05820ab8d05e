// `invoicing-mcp` and `invoicing-mcp --http …` as a function: the same flags, environment and server, started
// inside the caller's process (over stdio, on the streams it gives). The end-to-end tests run the built
// bundle this way where they need no process of their own (no signal, kill, restart or stdout of a process),
// so a test file does not pay a Node start for each server.
import type { HostedIo } from './hosted-command.js';
import { type ServeIo, type Serving, startServe } from './serve-command.js';
import { parseServeOptions } from './serve-flags.js';
import { ConfigError, type ServiceEnv } from './service-env.js';

export type { HostedIo, ServeIo, Serving };

export async function serveInProcess(argv: string[], env: ServiceEnv, io: ServeIo): Promise<Serving> {
  const options = parseServeOptions(argv, env);
  if (options.hosted) throw new ConfigError('--hosted', 'serveInProcess serves stdio and --http, not --hosted');
  if (options.transport === 'stdio' && (!io.stdin || !io.stdout)) {
    throw new ConfigError('stdio', "serveInProcess over stdio needs the streams to speak on (io.stdin, io.stdout), not the process's own");
  }
  return startServe(options, env, io);
}

/** `invoicing-mcp --http --hosted …` as a function, inside the caller's process; `io.now` is its tenants' clock. */
export async function hostedInProcess(argv: string[], env: ServiceEnv, io: HostedIo): Promise<Serving> {
  const options = parseServeOptions(argv, env);
  if (!options.hosted) throw new ConfigError('--hosted', 'hostedInProcess serves --hosted only: serveInProcess serves the rest');
  const { startHostedServe } = await import('./hosted-command.js');
  return startHostedServe(options, env, io);
}
