// A service the whole run shares (Postgres, Chromium), started by a globalSetup beside the first test files:
// the setup writes a status file once the service is up or has failed, and a test waits for it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

export type RunServiceStatus = { ready: true } | { error: string };

/** Writes the status whole or not at all: a test never reads half a status. */
export function tellStatus(statusFile: string, status: RunServiceStatus): void {
  writeFileSync(`${statusFile}.part`, JSON.stringify(status));
  renameSync(`${statusFile}.part`, statusFile);
}

/** Waits for the service's status file; throws the reason it did not start (`what` names it). */
export async function awaitStatus(statusFile: string, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!existsSync(statusFile)) {
    if (Date.now() > deadline) throw new Error(`the tests' ${what} did not say it was ready within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const status = JSON.parse(readFileSync(statusFile, 'utf8')) as RunServiceStatus;
  if ('error' in status) throw new Error(`the tests' ${what} did not start: ${status.error}`);
}

/** A loopback port free at the moment of asking, for a service told its port before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
