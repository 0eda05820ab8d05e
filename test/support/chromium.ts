// Chromium from the registry (@sparticuz/chromium, driven by playwright-core) as the browser tests use it: one
// for the run (chromium-global.ts), with the build's own flags less its GPU emulation and (strict) the two flags
// that lift the web's security. SwiftShader draws on threads of its own, about a third of the browser's CPU in these
// tests, for pages nothing here needs a GPU for: they are laid out, read, clicked and audited, and a screenshot
// comes from software compositing all the same. The pages must live under the web's security (the views and
// their CSP, the sign-in page).
import chromium from '@sparticuz/chromium';
import { type Browser, type BrowserServer, chromium as playwright } from 'playwright-core';
import { inject } from 'vitest';
import { awaitStatus } from './run-service.js';

const GPU_EMULATION = /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/;
const LOOSENING = new Set(['--disable-web-security', '--allow-running-insecure-content']);

async function launchOptions(strict: boolean) {
  const args = chromium.args.filter((a) => !GPU_EMULATION.test(a) && !(strict && LOOSENING.has(a)));
  return { executablePath: await chromium.executablePath(), args: [...args, '--disable-gpu'], headless: true };
}

/** A browser of the caller's own (the real Inspector's run, whose pages need the loosened flags). */
export async function launchChromium(): Promise<Browser> {
  return playwright.launch(await launchOptions(false));
}

/**
 * The run's browser, strict, listening on `port` at `wsPath`. Not as one process (the build's default): one
 * process serving several files' pages at once closed under them, and it ended with its last context.
 */
export async function chromiumServer(port: number, wsPath: string): Promise<BrowserServer> {
  const options = await launchOptions(true);
  const args = options.args.filter((a) => a !== '--single-process');
  return playwright.launchServer({ ...options, args, port, wsPath });
}

/** The run's browser, as a test file's own connection (closing it leaves the browser to the other files). */
export async function connectChromium(): Promise<Browser> {
  const provided = inject('chromium');
  if (!provided) throw new Error('this run started no Chromium: a browser test file is listed in BROWSER (test/support/tiers.ts)');
  await awaitStatus(provided.statusFile, 'Chromium');
  return playwright.connect(provided.endpoint);
}
