// The real MCP Inspector (its web UI, from the npm registry) connects to hosted mode through the OAuth flow,
// driven in a real browser (Chromium from the registry): the person switches the server on, is sent to our
// sign-in page, fills Key ID and Secret, Allows, and is back in the Inspector, connected; its tool call
// answers the business's books, checked against the sandbox's raw API. The Inspector's backend makes every
// request to our server (discovery, registration, token, /mcp); its page only navigates to us and back.
// Run with `npm run test:inspector` (not in `npm run test:all`: see vitest.inspector.config.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listAll, signIn } from '../contract/sandbox-http.js';
import { invoiceFigures } from '../e2e/support/expect.js';
import { type HostedServer, newVaultKey, startHostedServer } from '../e2e/support/hosted.js';
import { fillKey, type Signer } from '../e2e/support/oauth-client.js';
import { launchChromium } from '../support/chromium.js';
import { postgresDatabase } from '../support/postgres.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { type InspectorWeb, runInspectorCli, startInspectorWeb } from './support/inspector-web.js';

let sb: TestSandbox;
let server: HostedServer;
let inspector: InspectorWeb;
let browser: Browser;
let page: Page;
/** The business the web UI signed in with, and its invoices from the raw API. */
let invoices: any[] = [];
const home = mkdtempSync(join(tmpdir(), 'invoicing-mcp-inspector-'));

/** A business of its own for the test, with its live key and its name. */
async function newBusiness(): Promise<{ name: string; signer: Signer }> {
  const made = await sb.admin('POST', '/businesses', {});
  expect(made.status).toBe(201);
  const live = made.body.keys.live;
  return { name: made.body.name, signer: { keyId: live.key_id, secret: live.secret } };
}

beforeAll(async () => {
  sb = await startTestSandbox();
  server = await startHostedServer({ sandbox: sb, database: await postgresDatabase('inspector_oauth'), vaultKey: newVaultKey() });
  [inspector, browser] = await Promise.all([startInspectorWeb(inject('inspector').launcher, server.url, home), launchChromium()]);
  const context = await browser.newContext();
  // Its page asks for web fonts from elsewhere: nothing leaves loopback.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await inspector?.close();
  await server?.close();
  await sb?.close();
  rmSync(home, { recursive: true, force: true });
});

describe(`the MCP Inspector ${inject('inspector').version}`, () => {
  it('connects through our sign-in page, and its tool call answers that business books', async () => {
    const business = await newBusiness();
    invoices = await listAll(
      await signIn(sb.baseUrl, { key_id: business.signer.keyId, secret: business.signer.secret }),
      '/api/v1/invoices',
    );
    const invoice = invoices.at(-1);

    await page.goto(inspector.url);
    // Mantine's switch: its track lies over the input it stands for.
    await page.getByRole('switch', { name: /Connect or disconnect/ }).check({ force: true });
    await page.waitForURL(`${server.origin}/oauth/interaction/**`);
    expect(await page.title()).toMatch(/Sign in/);
    expect(await page.locator('h1').textContent()).toContain('MCP Inspector');
    await fillKey(page, business.signer);
    expect(await page.locator('#business').textContent()).toBe(business.name);
    await page.getByRole('button', { name: 'Allow' }).click();

    await page.waitForURL(`${inspector.origin}/**`);
    await page.getByText('Connected', { exact: true }).waitFor();
    // The tabs are radio inputs kept out of sight behind their labels.
    await page.locator('label', { hasText: /^Tools$/ }).click();
    await page.getByRole('button', { name: /get_invoice/ }).click();
    // The argument's editor keeps its text area under its own layers: typed into, as a person does.
    await page.getByRole('textbox', { name: /^id/ }).focus();
    await page.keyboard.type(String(invoice.id));
    await page.getByRole('button', { name: 'Execute Tool' }).click();
    const answer = page.getByText(`#${invoice.id} ${invoice.number}`);
    await answer.waitFor();
    const text = await answer.textContent();
    expect(text).toContain(`total ${invoice.currency} ${invoice.total}`);
    expect(text).toContain(`balance ${invoice.currency} ${invoice.balance}`);
    expect(text).toContain(invoice.customer.name);
  });

  it('its command line calls a tool with the grant its web UI made through our sign-in', async () => {
    const invoice = invoices[0];
    expect(invoice).toBeDefined();
    const launcher = inject('inspector').launcher;
    const args = ['--method', 'tools/call', '--tool-name', 'get_invoice', '--tool-arg', `id=${invoice.id}`];
    const result = JSON.parse(await runInspectorCli(launcher, server.url, home, args));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject(invoiceFigures(invoice));
  });
});
