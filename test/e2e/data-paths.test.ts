// The two data paths of test/e2e/data-paths.txt as they run (V8's precise coverage, three tries, the sandbox's
// files left out): report_sales over stdio on a warm mirror, a hosted webhook until subscriber and mirror have it.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../contract/sandbox-http.js';
import { filesRunBy } from '../support/files-run.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { openSignIn } from './support/form-sign-in.js';
import { hostedArgs, newVaultKey } from './support/hosted.js';
import { draftInvoice, mirroredStatus, registerWebhook, sendInvoice } from './support/hosted-webhooks.js';
import { modernWatcher } from './support/mcp-watchers.js';
import { MemoryOAuthProvider, startFlow } from './support/oauth-client.js';
import { freePort, serverEnv } from './support/server.js';

const lists = readFileSync(new URL('./data-paths.txt', import.meta.url), 'utf8');
const REDIRECT = 'http://127.0.0.1:9/callback';
const quiet = { stderr: () => undefined, logDestination: { write: () => undefined } };

/**
 * The files listed between `<!-- path:NAME -->` and the end of the fenced block after it: those that must run,
 * and those marked `later:` (work the path sets off, which may end after it).
 */
function listed(name: string): { must: string[]; may: string[] } {
  const at = lists.indexOf(`<!-- path:${name} -->`);
  if (at < 0) throw new Error(`test/e2e/data-paths.txt has no <!-- path:${name} --> list`);
  const block = /```\n([\s\S]*?)```/.exec(lists.slice(at))?.[1] ?? '';
  const rows = block
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([file]) => /^(src|tools|prompts)\//.test(file ?? ''));
  const files = (later: boolean) =>
    rows
      .filter(([, first]) => (first === 'later:') === later)
      .map(([file]) => file as string)
      .sort();
  return { must: files(false), may: files(true) };
}

/** `ran` is what the list says: every file that must run ran, and nothing ran that it does not name. */
function expectListed(ran: string[], name: string): void {
  const { must, may } = listed(name);
  expect(ran.filter((file) => !may.includes(file))).toEqual(must);
}

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

describe('the data paths of test/e2e/data-paths.txt', () => {
  it('report_sales over stdio crosses the files listed', async () => {
    const { serveInProcess } = await import('../../src/cli/serve-in-process.js');
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const answered = new Map<number, (message: { result?: { isError?: boolean } }) => void>();
    createInterface({ input: stdout }).on('line', (line) => {
      const message = JSON.parse(line);
      answered.get(message.id)?.(message);
    });
    let id = 0;
    const ask = (method: string, params: unknown) =>
      new Promise<{ result?: { isError?: boolean } }>((resolve) => {
        answered.set(++id, resolve);
        stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    const key = await sb.makeKey('test');
    const serving = await serveInProcess(
      ['--mirror', 'memory'],
      serverEnv({ SVC_BASE_URL: sb.baseUrl, SVC_KEY_ID: key.key_id, SVC_SECRET: key.secret }),
      { ...quiet, stdin, stdout },
    );
    try {
      await ask('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'paths', version: '1' } });
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const sales = () => ask('tools/call', { name: 'report_sales', arguments: { range: 'last_month', group_by: 'product' } });
      // The first call brings the mirror up and reads the month's lines; the path measured is a warm call's.
      expect((await sales()).result?.isError).toBeFalsy();
      const files = await filesRunBy(async () => expect((await sales()).result?.isError).toBeFalsy());
      expectListed(files, 'report_sales');
    } finally {
      await serving.stop();
    }
  });

  it("a hosted webhook delivery crosses the files listed, until the business's subscriber hears", async () => {
    const { hostedInProcess } = await import('../../src/cli/serve-in-process.js');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const database = await postgresDatabase('data_paths');
    const serving = await hostedInProcess(
      hostedArgs(port, url, database),
      serverEnv({ SVC_BASE_URL: sb.baseUrl, INVOICING_MCP_VAULT_KEY: newVaultKey() }),
      quiet,
    );
    const made = await sb.admin('POST', '/businesses', {});
    sb.secrets.push(made.body.keys.live.secret, made.body.keys.test.secret);
    const signer = { keyId: made.body.keys.live.key_id, secret: made.body.keys.live.secret };
    const provider = new MemoryOAuthProvider(REDIRECT, 'Data paths');
    const flow = await startFlow(url, provider);
    const forms = await openSignIn(provider.authorizationUrl as URL, REDIRECT, `http://127.0.0.1:${port}`);
    const page = await forms.continueWith(signer);
    const hook = /id="webhook_url">([^<]+)</.exec(page)?.[1] as string;
    const secret = await registerWebhook(sb, made.body.id, hook);
    await flow.transport.finishAuth(await forms.allow(page, 'read', { webhook_secret: secret }));
    const watcher = await modernWatcher({ http: url, headers: { authorization: `Bearer ${provider.tokens()?.access_token}` } });
    try {
      /** A new invoice drafted and subscribed to; what sends it and waits for the subscriber to hear. */
      const delivery = async () => {
        const invoice = await draftInvoice(sb, signer);
        const uri = `invoicing://invoices/${invoice}`;
        await watcher.subscribe([uri]);
        return async () => {
          const since = Date.now();
          await sendInvoice(sb, made.body.id, invoice);
          await watcher.updated(uri, since, 10_000);
          // ...and the business's mirror holds it (the receiver publishes first; the mirror stores it after).
          await eventually(async () => ((await mirroredStatus(database, sb, signer.keyId, invoice)) === 'sent' ? true : undefined));
        };
      };
      // The first delivery opens the business's mirror; the path measured is a warm delivery's.
      await (await delivery())();
      const tries = [await delivery(), await delivery(), await delivery()];
      const files = await filesRunBy(async () => (tries.shift() as () => Promise<void>)());
      expectListed(files, 'hosted_webhook');
    } finally {
      await watcher.close();
      await serving.stop();
    }
  });
});
