// `invoicing-mcp --http …` as a function: the same flags, environment and server, started inside the caller's
// process. The end-to-end tests run the built bundle this way where they need no process of their own (no
// signal, kill or restart), so a test file does not pay a Node start for each server.
import { type ServeIo, type Serving, startServe } from './serve-command.js';
import { parseServeOptions } from './serve-flags.js';
import { ConfigError, type ServiceEnv } from './service-env.js';

export type { ServeIo, Serving };

export async function serveInProcess(argv: string[], env: ServiceEnv, io: ServeIo): Promise<Serving> {
  const options = parseServeOptions(argv, env);
  if (options.transport !== 'http' || options.hosted) {
    throw new ConfigError('--http', 'serveInProcess serves --http only (not stdio, not --hosted)');
  }
  return startServe(options, env, io);
}
