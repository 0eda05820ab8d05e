// A newcomer's path: start the built CLI's sandbox, copy the keys it prints into the curl commands of the
// service contract (the README points there), and run them as written.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
let child: ChildProcess;
let printed = '';

beforeAll(async () => {
  child = spawn(process.execPath, [`${root}dist/bin/invoicing-mcp.mjs`, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve) => {
    lines.on('line', (line) => {
      printed += `${line}\n`;
      if (line.includes('Stop with Ctrl-C')) resolve();
    });
  });
});

afterAll(() => {
  child.kill('SIGTERM');
});

function curlBlock(): string {
  const doc = readFileSync(`${root}docs/service-contract.md`, 'utf8');
  const section = doc.slice(doc.indexOf('## Try it with curl'));
  const start = section.indexOf('```sh\n') + 6;
  return section.slice(start, section.indexOf('```', start));
}

describe('the README sandbox walk-through', () => {
  it('prints a test key, a live key and the admin token', () => {
    expect(printed).toMatch(/SVC_KEY_ID=svck_test_[A-Za-z0-9]{24}/);
    expect(printed).toMatch(/SVC_SECRET=svc_test_[A-Za-z0-9]{40}/);
    expect(printed).toMatch(/SVC_KEY_ID=svck_live_[A-Za-z0-9]{24}/);
    expect(printed).toMatch(/Bearer sbx_admin_/);
  });

  it('signs in, lists invoices and drafts one with the curl commands as written', () => {
    const keyId = /SVC_KEY_ID=(svck_test_\S+)/.exec(printed)?.[1] ?? '';
    const secret = /SVC_SECRET=(svc_test_\S+)/.exec(printed)?.[1] ?? '';
    const base = /listening on (\S+)/.exec(printed)?.[1] ?? '';
    const script = curlBlock()
      .replace(/^KEY=.*$/m, `KEY=${keyId}`)
      .replace(/^SECRET=.*$/m, `SECRET=${secret}`)
      .replace(/^BASE=.*$/m, `BASE=${base}`);
    expect(script).toContain('curl');
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const answers = run.stdout.split(/(?<=})(?={)/);
    expect(answers).toHaveLength(4);
    expect(JSON.parse(answers[0] as string).data).toHaveLength(2);
    expect(JSON.parse(answers[1] as string).data.every((p: { stock: { low: boolean } }) => p.stock.low)).toBe(true);
    expect(JSON.parse(answers[2] as string).meta.total).toBeGreaterThan(0);
    expect(JSON.parse(answers[3] as string).data).toMatchObject({ status: 'draft', total: '414.00' });
  });
});

describe('invoicing-mcp sandbox --help', () => {
  it('prints the sandbox usage and exits 0; an unknown flag exits 2 with that usage', () => {
    const help = spawnSync(process.execPath, [`${root}dist/bin/invoicing-mcp.mjs`, 'sandbox', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: invoicing-mcp sandbox \[--port N\]/);
    const wrong = spawnSync(process.execPath, [`${root}dist/bin/invoicing-mcp.mjs`, 'sandbox', '--bogus'], { encoding: 'utf8' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--bogus'");
    expect(wrong.stderr).toContain('usage: invoicing-mcp sandbox');
  });
});
