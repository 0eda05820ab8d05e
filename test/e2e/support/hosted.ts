// A hosted server (--http --hosted) of the built bundle, on a database of the test file's own and a sandbox: its
// public URL is its loopback address (known before it starts), its vault key drawn for the test. It runs inside
// the test worker (`startHostedServer`) unless the test needs a process of its own (`spawnHostedProcess`: two
// processes of one deployment, a process killed or its exit read).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { TestSandbox } from '../../support/sandbox.js';
import { CLI, type Env, freePort, SERVE_IN_PROCESS, serverEnv, stopChild } from './server.js';

export interface HostedServer {
  /** The canonical URL of /mcp. */
  url: string;
  origin: string;
  /** Where this process itself listens (its /mcp): the public URL, unless it is a second process of a deployment. */
  direct: string;
  stderr: () => string;
  close(): Promise<void>;
}

export const newVaultKey = (): string => randomBytes(32).toString('base64');

export interface HostedOptions {
  sandbox: TestSandbox;
  database: string;
  vaultKey: string;
  args?: string[];
  env?: Env;
  /** The deployment's public URL of /mcp, when this process is not the one listening at it. */
  publicUrl?: string;
}

/** The flags of a hosted server on loopback `port`, public at `url`, on `database`. */
export const hostedArgs = (port: number, url: string, database: string): string[] => [
  '--http',
  '--hosted',
  '--port',
  String(port),
  '--host',
  '127.0.0.1',
  '--public-url',
  url,
  '--mirror',
  database,
];

/** The environment a hosted server of the tests starts with. */
function hostedEnv(options: HostedOptions): Env {
  return serverEnv({
    SVC_BASE_URL: options.sandbox.baseUrl,
    INVOICING_MCP_VAULT_KEY: options.vaultKey,
    // The test sandbox allows 1000 sign-ins a minute unless a test says otherwise (then so does its server).
    INVOICING_MCP_SERVICE_SIGN_INS: '1000',
    // Tests register clients freely from 127.0.0.1; the registration limit's own test sets the figure it tests.
    INVOICING_MCP_REGISTRATIONS_PER_HOUR: '1000',
    ...options.env,
  });
}

/**
 * `invoicing-mcp --http --hosted` from the built bundle, started inside the test worker: the same flags,
 * environment (given, never the worker's own) and server, without a Node start (and the OAuth library's load)
 * for each server.
 */
export async function startHostedServer(options: HostedOptions): Promise<HostedServer> {
  const { hostedInProcess } = (await import(SERVE_IN_PROCESS)) as typeof import('../../../src/cli/serve-in-process.js');
  const port = await freePort();
  const direct = `http://127.0.0.1:${port}/mcp`;
  const url = options.publicUrl ?? direct;
  let stderr = '';
  const write = (text: string) => void (stderr += text.endsWith('\n') ? text : `${text}\n`);
  const serving = await hostedInProcess([...hostedArgs(port, url, options.database), ...(options.args ?? [])], hostedEnv(options), {
    stderr: write,
    logDestination: { write },
  });
  return { url, origin: new URL(url).origin, direct, stderr: () => stderr, close: () => serving.stop() };
}

/** Starts `invoicing-mcp --http --hosted` as a process of its own and resolves once it listens. */
export async function spawnHostedProcess(options: HostedOptions): Promise<HostedServer> {
  const port = await freePort();
  const direct = `http://127.0.0.1:${port}/mcp`;
  const url = options.publicUrl ?? direct;
  const args = [CLI, ...hostedArgs(port, url, options.database)];
  const env = hostedEnv(options);
  const child: ChildProcess = spawn(process.execPath, [...args, ...(options.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('hosted MCP server at')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`hosted server exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    url,
    origin: new URL(url).origin,
    direct,
    stderr: () => stderr,
    close: () => stopChild(child),
  };
}

/** Runs `invoicing-mcp vault reseal` on `database` with `vaultKey`, as an operator would: its exit code and output. */
export async function resealVault(database: string, vaultKey: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'vault', 'reseal', '--mirror', database], {
    env: serverEnv({ INVOICING_MCP_VAULT_KEY: vaultKey }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
