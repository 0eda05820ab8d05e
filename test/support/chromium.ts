// Chromium from the registry (@sparticuz/chromium, driven by playwright-core) as the browser tests launch it:
// the build's own flags, less its GPU emulation. SwiftShader draws on threads of its own, about a third of the
// browser's CPU in these tests, for pages nothing here needs a GPU for: they are laid out, read, clicked and
// audited, and a screenshot comes from software compositing all the same. `strict` also drops the two flags
// that lift the web's security, for pages that must live under it (the views and their CSP).
import chromium from '@sparticuz/chromium';
import { type Browser, chromium as playwright } from 'playwright-core';

const GPU_EMULATION = /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/;
const LOOSENING = new Set(['--disable-web-security', '--allow-running-insecure-content']);

export async function launchChromium(options: { strict?: boolean } = {}): Promise<Browser> {
  const args = chromium.args.filter((a) => !GPU_EMULATION.test(a) && !(options.strict && LOOSENING.has(a)));
  return playwright.launch({ executablePath: await chromium.executablePath(), args: [...args, '--disable-gpu'], headless: true });
}
