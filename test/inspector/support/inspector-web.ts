// The MCP Inspector as a person starts it (`npx @modelcontextprotocol/inspector --transport http --server-url
// …`, or with --cli), in a home folder of the test's own: its registrations and grants start empty, and its
// secrets go to a file there (so its command line finds the grant its web UI made). It opens no browser.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort, stopChild } from '../../e2e/support/server.js';

export interface InspectorWeb {
  /** Its page, with the token its backend asks for. */
  url: string;
  origin: string;
  close(): Promise<void>;
}

const inspectorEnv = (home: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: home,
  MCP_AUTO_OPEN_ENABLED: 'false',
  MCP_INSPECTOR_SECRET_STORE: 'file',
});

export async function startInspectorWeb(launcher: string, serverUrl: string, home: string): Promise<InspectorWeb> {
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const env = {
    ...inspectorEnv(home),
    CLIENT_PORT: String(port),
    // Its MCP Apps sandbox and app origin on ports of the system's choosing, away from a developer's own Inspector.
    MCP_SANDBOX_PORT: '0',
    MCP_APP_ORIGIN_PORT: '0',
    MCP_INSPECTOR_API_TOKEN: token,
  };
  const args = [launcher, '--web', '--transport', 'http', '--server-url', serverUrl];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: string) => {
      output += chunk;
      if (output.includes('is up and running')) resolve();
    };
    child.stdout!.setEncoding('utf8').on('data', read);
    child.stderr!.setEncoding('utf8').on('data', read);
    child.once('exit', (code) => reject(new Error(`the Inspector exited (${code}) before it listened:\n${output}`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  return { url: `${origin}/?MCP_INSPECTOR_API_TOKEN=${token}`, origin, close: () => stopChild(child) };
}

/** One run of its command line on the server with the grant it holds (no sign-in of its own); what it printed. */
export function runInspectorCli(launcher: string, serverUrl: string, home: string, args: string[]): Promise<string> {
  const argv = [launcher, '--cli', serverUrl, '--stored-auth-only', ...args];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env: inspectorEnv(home), timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`the Inspector's command line failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}
