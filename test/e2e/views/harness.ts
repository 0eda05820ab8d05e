// A host for the views in a real Chromium: a page on 127.0.0.1 (served here) whose script is host-page.ts,
// the views' pages served under the CSP a host puts on them (no network, inline script and styles only),
// every request the page makes checked (anything but this server's own is refused and kept), and every
// console error and page error kept, so a test can say there were none.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import axe from 'axe-core';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import { connectChromium } from '../../support/chromium.js';

export type Theme = 'light' | 'dark';

/** What a host's sandbox allows a view that asked for no domains: its own inline code, nothing fetched. */
export const VIEW_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:";

export interface Harness {
  page: Page;
  /** Requests the page made to anywhere but the harness. */
  strayRequests: string[];
  /** Console errors and uncaught page errors, of the host page and the views. */
  errors: string[];
  /** Puts a view's page (its HTML, as resources/read gave it) in the host and sends it a tool result. */
  show(html: string, theme: Theme, args: Record<string, unknown>, result: unknown): Promise<Frame>;
  /**
   * Shows a result with the host naming `tool` and letting the view call it: each call the view makes is
   * answered by `answer` (the test's client, to the real server). The page's clock is the test's from then on
   * (running on, moved on by `advanceClock`), so the view's own waits pass at once.
   */
  showCalling(
    html: string,
    theme: Theme,
    args: Record<string, unknown>,
    result: unknown,
    tool: string,
    answer: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>,
  ): Promise<Frame>;
  /** Moves the page's clock on (after showCalling). */
  advanceClock(ms: number): Promise<void>;
  /** Waits until the view has drawn again in the theme (after a call of its own). */
  redrawn(frame: Frame, theme: Theme, check: () => Promise<boolean>): Promise<void>;
  /** The same with the arguments only, as while a long call runs: resolves once the view says it waits. */
  showWaiting(html: string, theme: Theme, args: Record<string, unknown>): Promise<Frame>;
  /** Sends the result of the call shown, later; resolves once the view has drawn it. */
  sendResult(frame: Frame, theme: Theme, result: unknown): Promise<void>;
  /** The host cancels the call shown; resolves once the view says so. */
  cancel(frame: Frame, theme: Theme, reason: string): Promise<void>;
  setTheme(frame: Frame, theme: Theme): Promise<void>;
  /** The links the view asked the host to open. */
  opened(): Promise<string[]>;
  /** Serious and critical accessibility violations axe-core finds in the view (only these rules, if named). */
  axeViolations(frame: Frame, rules?: string[]): Promise<string[]>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

async function hostScript(): Promise<string> {
  const out = await build({
    entryPoints: [new URL('host-page.ts', import.meta.url).pathname],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
  });
  return out.outputFiles[0]?.text ?? '';
}

function serve(script: string, views: Map<string, string>): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>View host</title></head><body></body><script src="/host.js"></script></html>',
      );
    } else if (url === '/host.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(script);
    } else if (views.has(url)) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': VIEW_CSP });
      res.end(views.get(url));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

export async function startHarness(): Promise<Harness> {
  const views = new Map<string, string>();
  const { server, origin } = await serve(await hostScript(), views);
  let browser: Browser;
  try {
    // The run's browser is strict: the views must live under the web's security, as in a host.
    browser = await connectChromium();
  } catch (err) {
    server.close();
    throw err;
  }
  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  const strayRequests: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    strayRequests.push(url);
    return route.abort('blockedbyclient');
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(`${origin}/`);
  let shown = 0;
  let answer: ((params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>) | null = null;
  await page.exposeFunction('callTool', (params: { name: string; arguments?: Record<string, unknown> }) => {
    if (!answer) throw new Error('this view was not let call tools');
    return answer(params);
  });
  let clockInstalled = false;

  const viewFrame = async (): Promise<Frame> => {
    const handle = await page.waitForSelector('iframe');
    const frame = await handle.contentFrame();
    if (!frame) throw new Error('the view frame has no document');
    return frame;
  };
  /** Waits until the view has drawn in the theme (in this state, or in any) and the host has sized the frame to its content. */
  const settled = async (frame: Frame, theme: Theme, state: string | null = 'ready'): Promise<void> => {
    await frame.waitForSelector(`main${state ? `[data-state="${state}"]` : '[data-state]'}[data-theme="${theme}"]`);
    const contentHeight = () => frame.evaluate(() => document.documentElement.scrollHeight);
    await page.waitForFunction((h) => window.harness.height === h, await contentHeight());
  };

  return {
    page,
    strayRequests,
    errors,
    async show(html, theme, args, result) {
      const path = `/view/${++shown}`;
      views.set(path, html);
      await page.evaluate(([p, t, a, r]) => window.harness.show(p, t, a, r), [path, theme, args, result] as const);
      const frame = await viewFrame();
      await settled(frame, theme);
      return frame;
    },
    async showCalling(html, theme, args, result, tool, answerCall) {
      answer = answerCall;
      if (!clockInstalled) await page.clock.install();
      clockInstalled = true;
      const path = `/view/${++shown}`;
      views.set(path, html);
      await page.evaluate(([p, t, a, r, n]) => window.harness.show(p, t, a, r, n), [path, theme, args, result, tool] as const);
      const frame = await viewFrame();
      await settled(frame, theme);
      return frame;
    },
    async advanceClock(ms) {
      await page.clock.fastForward(ms);
    },
    async redrawn(frame, theme, check) {
      for (let i = 0; i < 200 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      await settled(frame, theme);
    },
    async showWaiting(html, theme, args) {
      const path = `/view/${++shown}`;
      views.set(path, html);
      await page.evaluate(([p, t, a]) => window.harness.show(p, t, a, null), [path, theme, args] as const);
      const frame = await viewFrame();
      await settled(frame, theme, 'waiting');
      return frame;
    },
    async sendResult(frame, theme, result) {
      await page.evaluate((r) => window.harness.result(r), result as any);
      await settled(frame, theme);
    },
    async cancel(frame, theme, reason) {
      await page.evaluate((r) => window.harness.cancel(r), reason);
      await settled(frame, theme, 'cancelled');
    },
    async setTheme(frame, theme) {
      await page.evaluate((t) => window.harness.setTheme(t), theme);
      await settled(frame, theme, null);
    },
    opened: () => page.evaluate(() => window.harness.opened),
    async axeViolations(frame, rules) {
      if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(axe.source);
      const found = await frame.evaluate(
        (only) =>
          (window as unknown as { axe: typeof axe }).axe.run(document, {
            resultTypes: ['violations'],
            ...(only ? { runOnly: { type: 'rule', values: only } } : {}),
          }),
        rules,
      );
      return found.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    },
    async screenshot(path) {
      await page.locator('iframe').screenshot({ path });
    },
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
