// No one can spend the deployment's sign-ins at the service for others, driven through the real sign-in
// page in Chromium, on a sandbox holding the service's own limit (10 sign-ins a minute from one address) and
// a server told so, behind a trusted proxy (each role's browser requests carry its own X-Forwarded-For):
// right answers posted together are one check; a visitor with its own valid key who posts Continue again and
// again and never presses Allow spends one sign-in, and from one address only its share, so another
// business's first sign-in goes straight in; key IDs with unicode and control characters are refused
// clearly, never echoed, never sent to the service, and break no log line.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSandbox } from '../support/sandbox.js';
import { type BrowserDeployment, startBrowserDeployment } from './support/browser-deployment.js';
import { type HostedServer, newVaultKey, startHostedServer } from './support/hosted.js';
import { type Callback, fillKey, MemoryOAuthProvider, oauthClient, type Signer, startFlow } from './support/oauth-client.js';
import { newBusiness } from './support/page-sign-in.js';

let sb: TestSandbox;
let server: HostedServer;
let context: BrowserContext;
let page: Page;
let callback: Callback;
let deployment: BrowserDeployment | undefined;

const vaultKey = newVaultKey();
const ENV = { INVOICING_MCP_SERVICE_SIGN_INS: '10', INVOICING_MCP_TRUST_PROXY: '127.0.0.1' };

beforeAll(async () => {
  deployment = await startBrowserDeployment({
    label: 'hosted_signin_spending',
    vaultKey,
    // The service's own limit, held by the sandbox and told to the server; every role comes through the proxy.
    sandbox: { rateLimit: 1_000_000, signInLimit: 10 },
    env: ENV,
  });
  ({ sb, server, context, page, callback } = deployment);
});

afterAll(() => deployment?.close());

/** The browser's requests from now on come through the proxy from `address`. */
const from = (address: string) => context.setExtraHTTPHeaders({ 'x-forwarded-for': address });

/** A new client's sign-in page, open in the browser; the client, to finish with. */
async function openPage(name: string) {
  const provider = new MemoryOAuthProvider(callback.url, name);
  const flow = await startFlow(server.url, provider);
  await page.goto(String(provider.authorizationUrl));
  return { provider, flow };
}

/** What the page says after Continue: the consent step, or the alert's words and the status of the answer. */
async function continueWith(signer: Signer): Promise<{ status: number; consent: boolean; alert: string }> {
  const answered = page.waitForResponse((r) => r.request().method() === 'POST');
  await fillKey(page, signer);
  const status = (await answered).status();
  const consent = (await page.getByRole('button', { name: 'Allow' }).count()) === 1;
  const alert = consent ? '' : String(await page.getByRole('alert').textContent());
  return { status, consent, alert };
}

/**
 * The key form of the open page, posted by hand with the browser's cookies, as a script would: to the
 * process at `via` (this one unless given; another process of the deployment knows the page too).
 */
async function keyForm(address: string) {
  const action = String(await page.locator('form').getAttribute('action'));
  const csrf = String(await page.locator('input[name=csrf]').getAttribute('value'));
  const cookie = (await context.cookies(`${server.origin}${action}`)).map((c) => `${c.name}=${c.value}`).join('; ');
  return async (keyId: string, secret: string, via = server.direct) => {
    const res = await fetch(new URL(action, via), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: server.origin, 'x-forwarded-for': address },
      body: new URLSearchParams({ csrf, action: 'continue', key_id: keyId, secret }).toString(),
    });
    return { status: res.status, page: await res.text() };
  };
}

const serviceSignIns = async (keyId?: string): Promise<number> => (await sb.signIns(keyId)).length;

describe('right answers posted together', () => {
  it('four Continue posts at once with the right secret all go on to Allow, with one sign-in at the service', async () => {
    const owner = await newBusiness(sb);
    await from('198.51.100.4');
    await openPage('Double clicker');
    const post = await keyForm('198.51.100.4');
    const answers = await Promise.all([1, 2, 3, 4].map(() => post(owner.keyId, owner.secret)));
    expect(
      answers.map((a) => a.status),
      answers.map((a) => a.page.match(/<p>([^<]*)<\/p><\/div>/)?.[1] ?? '').join(' | '),
    ).toEqual([200, 200, 200, 200]);
    for (const a of answers) expect(a.page).toContain('value="allow"');
    expect(await serviceSignIns(owner.keyId)).toBe(1);
  });

  it('across two servers of the deployment too (each its own pool and checks): four at once, two to each, one sign-in at the service', async () => {
    const second = await startHostedServer({
      sandbox: sb,
      database: (deployment as BrowserDeployment).database,
      vaultKey,
      publicUrl: server.url,
      env: ENV,
    });
    try {
      const owner = await newBusiness(sb);
      await from('198.51.100.5');
      await openPage('Double clicker, two processes');
      const post = await keyForm('198.51.100.5');
      const answers = await Promise.all(
        [server.direct, second.direct, server.direct, second.direct].map((via) => post(owner.keyId, owner.secret, via)),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      for (const a of answers) expect(a.page).toContain('value="allow"');
      expect(await serviceSignIns(owner.keyId)).toBe(1);
    } finally {
      await second.close();
    }
  });
});

describe('a visitor with its own valid key who never presses Allow', () => {
  it("posts Continue again and again and with two more keys: it spends its share, and another business's first sign-in goes in", async () => {
    const visitor = await newBusiness(sb);
    const otherKeys = [await sb.makeKey('live', undefined, visitor.businessId), await sb.makeKey('live', undefined, visitor.businessId)];
    await from('203.0.113.66');
    // Continue, back to the key step, Continue again: on one page, then on fresh pages.
    const loop: Awaited<ReturnType<typeof continueWith>>[] = [];
    await openPage('Looping visitor');
    for (let i = 0; i < 6; i++) {
      loop.push(await continueWith(visitor));
      await page.goBack();
    }
    for (let i = 0; i < 3; i++) {
      await openPage(`Looping visitor ${i}`);
      loop.push(await continueWith(visitor));
    }
    const more = [];
    for (const key of otherKeys) {
      await openPage('Looping visitor, another key');
      more.push(await continueWith({ keyId: key.key_id, secret: key.secret }));
    }

    // Another business's owner, signing in for the first time from elsewhere, goes straight in.
    const newcomer = await newBusiness(sb);
    await from('198.51.100.20');
    const { provider, flow } = await openPage('Newcomer');
    const step = await continueWith(newcomer);
    expect(step, JSON.stringify(step)).toMatchObject({ status: 200, consent: true });
    const returned = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    await flow.transport.finishAuth((await returned).searchParams);
    const connected = oauthClient(server.url, provider);
    await connected.client.connect(connected.transport);
    const checked = await connected.client.callTool({ name: 'check_connection', arguments: {} });
    expect(checked.isError, JSON.stringify(checked.content)).toBeFalsy();
    await connected.client.close();

    // Every Continue of the visitor's own key went on, for one sign-in at the service.
    expect(
      loop.every((s) => s.consent),
      JSON.stringify(loop),
    ).toBe(true);
    expect(await serviceSignIns(visitor.keyId)).toBe(1);
    // Its next key took the address's second sign-in of the minute; the one after was told to wait for its share.
    expect(more[0]).toMatchObject({ status: 200, consent: true });
    expect(more[1]?.status).toBe(429);
    expect(more[1]?.alert).toMatch(/Sign-ins from your address have had their share .*Try again in \d+ seconds/);
    const visitorKeys = [visitor.keyId, ...otherKeys.map((k) => k.key_id)];
    const spent = (await sb.signIns()).filter((e) => visitorKeys.includes(String(e.key_id)));
    expect(spent.length).toBe(2);
  });
});

describe('key IDs with unicode and control characters', () => {
  const secret = 'svc_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
  // Typed into the field: a right-to-left override, a zero-width space, a Cyrillic letter that looks Latin, an emoji.
  const typed = [
    ['svck_live_abc\u202Edef', 14, '202E'],
    ['svck_live_ab\u200Bcd', 13, '200B'],
    ['svck_live_\u0441bcd', 11, '0441'],
    ['svck_live_ab\u{1F600}', 13, '1F600'],
  ] as const;
  // Posted by a script: what a text field cannot hold (line breaks, NUL, an escape sequence, a line separator) and markup.
  const posted = [
    'svck_live_ab\ncd" onfocus="x',
    'svck_live_ab\r\n{"level":60,"msg":"forged"}',
    'svck_live_ab\u0000cd',
    'svck_live_ab\u001b[31mred',
    'svck_live_ab\u2028cd',
    'svck_live_<script>alert(1)</script>',
  ];

  it('are refused on the page, by position and code point, not shown again, never sent to the service, and break no log line', async () => {
    await from('192.0.2.77');
    const before = await serviceSignIns();
    const logFrom = server.stderr().length;
    await openPage('Unicode typist');
    for (const [keyId, position, code] of typed) {
      const step = await continueWith({ keyId, secret });
      expect(step.status).toBe(200);
      expect(step.alert).toContain(`That key ID cannot be one of the service's: its character ${position} is U+${code}`);
      expect(await page.getByLabel('Key ID').inputValue()).toBe('');
      expect(await page.getByLabel('Key ID').getAttribute('aria-invalid')).toBe('true');
      expect(await page.content()).not.toContain(keyId.slice(10));
    }
    const post = await keyForm('192.0.2.77');
    for (const keyId of posted) {
      const answer = await post(keyId, secret);
      expect(answer.status).toBe(200);
      expect(answer.page).toMatch(/That key ID cannot be one of the service&#39;s: its character \d+ is U\+[0-9A-F]{4}/);
      expect(answer.page).toContain('id="key_id"');
      expect(answer.page).toMatch(/id="key_id"[^>]*value=""/);
      expect(answer.page).not.toContain(keyId.slice(12));
    }
    expect(await serviceSignIns()).toBe(before);
    const lines = server.stderr().slice(logFrom).split('\n').filter(Boolean);
    const refusals = lines.filter((l) => l.includes('a sign-in was refused before the service'));
    expect(refusals.length).toBe(typed.length + posted.length);
    for (const line of lines) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(typeof parsed.level, line).toBe('number');
      const raw = [...line].filter((c) => (c.codePointAt(0) as number) < 0x20 || '\u2028\u2029\u202e\u200b'.includes(c));
      expect(raw, line).toEqual([]);
    }
  });
});
