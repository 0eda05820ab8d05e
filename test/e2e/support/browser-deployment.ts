// A hosted deployment for the browser tests: a sandbox, the client's callback listener, one hosted server at
// trace level on a database of its own, and Chromium with the one context and page the file navigates from
// flow to flow (closing a page of this Chromium build now and then never returns). The browser is the run's
// (chromium-global.ts): closing this connection leaves it to the other files.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import { connectChromium } from '../../support/chromium.js';
import { postgresDatabase } from '../../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';
import { type HostedServer, startHostedServer } from './hosted.js';
import { type Callback, startCallback } from './oauth-client.js';
import type { Env } from './server.js';

export interface BrowserDeployment {
  sb: TestSandbox;
  server: HostedServer;
  /** The server's database URL. */
  database: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  callback: Callback;
  close(): Promise<void>;
}

export async function startBrowserDeployment(options: {
  label: string;
  vaultKey: string;
  sandbox: SandboxOptions;
  env?: Env;
}): Promise<BrowserDeployment> {
  const [sb, callback] = await Promise.all([startTestSandbox(options.sandbox), startCallback()]);
  const database = await postgresDatabase(options.label);
  const [server, browser] = await Promise.all([
    startHostedServer({ sandbox: sb, database, vaultKey: options.vaultKey, args: ['--log-level', 'trace'], env: options.env ?? {} }),
    connectChromium(),
  ]);
  const context = await browser.newContext();
  const page = await context.newPage();
  return {
    sb,
    server,
    database,
    browser,
    context,
    page,
    callback,
    close: async () => {
      await browser.close();
      await callback.close();
      await server.close();
      await sb.close();
    },
  };
}
