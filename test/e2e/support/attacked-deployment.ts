// A hosted deployment to attack: two processes on a Postgres of the test's own (one it may SIGKILL and start
// again; never the run's shared one), a sandbox, and businesses signed in through the page's forms with
// write access, each with an OAuth client that holds its token. The scenarios of one test file run on it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KillablePostgres, startKillablePostgres } from '../../support/postgres-server.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { openSignIn } from './form-sign-in.js';
import { type HostedServer, newVaultKey, spawnHostedProcess } from './hosted.js';
import { MemoryOAuthProvider, oauthClient, type Signer, startFlow } from './oauth-client.js';
import { freePort } from './server.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const SIGN_INS_A_MINUTE = 20;

export interface Business {
  id: number;
  signer: Signer;
  provider: MemoryOAuthProvider;
}

export interface AttackedDeployment {
  sb: TestSandbox;
  postgres: KillablePostgres;
  /** The two processes: the first listens at the public URL. */
  servers: [HostedServer, HostedServer];
  /** A new business of the sandbox, signed in (write access) through the forms of `via`. */
  signInBusiness(name: string, via?: HostedServer): Promise<Business>;
  close(): Promise<void>;
}

export async function startAttackedDeployment(args: string[] = []): Promise<AttackedDeployment> {
  const folder = mkdtempSync(join(tmpdir(), 'hosted-attacked-'));
  const log: string[] = [];
  const [sb, postgres] = await Promise.all([
    // The service's limit on sign-ins from one address, as the deployment is told it (SERVICE_SIGN_INS): every
    // sign-in of the deployment comes from its one address. Twice the service's 10, for the businesses the
    // scenarios sign in within one minute besides those a flood of guesses must not reach.
    startTestSandbox({ rateLimit: 1_000_000, signInLimit: SIGN_INS_A_MINUTE }),
    freePort().then((port) => startKillablePostgres(folder, port, randomBytes(12).toString('hex'), log)),
  ]);
  const vaultKey = newVaultKey();
  // Each tenant's mirror asks the service for changes each second: its sync writes while the scenarios run.
  // Both processes stand behind a proxy at 127.0.0.1, whose X-Forwarded-For they believe.
  const env = {
    SVC_POLL_SECONDS: '1',
    INVOICING_MCP_SERVICE_SIGN_INS: String(SIGN_INS_A_MINUTE),
    INVOICING_MCP_TRUST_PROXY: '127.0.0.1',
  };
  const first = await spawnHostedProcess({ sandbox: sb, database: postgres.url, vaultKey, args, env });
  const second = await spawnHostedProcess({ sandbox: sb, database: postgres.url, vaultKey, args, env, publicUrl: first.url });
  const servers: [HostedServer, HostedServer] = [first, second];
  return {
    sb,
    postgres,
    servers,
    async signInBusiness(name, via = second) {
      const made = await sb.admin('POST', '/businesses', {});
      sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
      const signer = { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
      const provider = new MemoryOAuthProvider(REDIRECT, name);
      const flow = await startFlow(first.url, provider);
      const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, via.direct);
      await flow.transport.finishAuth(await forms.allow(await forms.continueWith(signer), 'write'));
      return { id: made.body.id as number, signer, provider };
    },
    async close() {
      await Promise.all(servers.map((s) => s.close()));
      await postgres.stop();
      await sb.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** The business's MCP client through `server`, with its stored token (its requests made by `fetch`, if given). */
export async function connected(business: Business, server: HostedServer, fetch?: typeof globalThis.fetch) {
  const { client, transport } = oauthClient(server.direct, business.provider, fetch);
  await client.connect(transport);
  return client;
}
