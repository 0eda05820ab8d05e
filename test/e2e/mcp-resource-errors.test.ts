// A failed resource read answers with the protocol's signals, through both clients and both transports: a
// record the books do not have is "resource not found", -32002 on the 2025 handshake (as 2025-11-25 names
// it) and -32602 with data exactly { uri } on 2026-07-28 (which requires it), naming the URI either way;
// a malformed URI is -32602 with data { uri, reason: 'invalid_uri' }.
// The refusals are not logged as warnings with stack traces. Templates are titled in good English.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, type Sdk, type Via } from './support/clients.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';
import { stdioHere } from './support/stdio-here.js';

const file = sandboxForFile();
let http: HttpServer;
beforeAll(async () => {
  http = await spawnHttpServer(['--log-level', 'debug'], file.env);
});
afterAll(() => http?.close());

/** v1 speaks the 2025 handshake; v2 pins 2026-07-28. */
const cases: { sdk: Sdk; via: 'stdio' | 'http'; notFound: number }[] = [
  { sdk: 'v2', via: 'http', notFound: -32602 },
  { sdk: 'v1', via: 'http', notFound: -32002 },
  { sdk: 'v1', via: 'stdio', notFound: -32002 },
  { sdk: 'v2', via: 'stdio', notFound: -32602 },
];

interface Refusal {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

async function refusal(c: Connected, uri: string): Promise<Refusal> {
  const err = (await c.client.readResource({ uri }).then(
    () => null,
    (e: unknown) => e,
  )) as Refusal | null;
  if (err === null) throw new Error(`${uri} was read`);
  return err;
}

describe.each(cases)('the $sdk client over $via', ({ sdk, via, notFound }) => {
  let c: Connected;
  beforeAll(async () => {
    const where: Via = via === 'stdio' ? { linked: await stdioHere([], file.env) } : { http: http.url };
    c = await connectClient(sdk, where);
  });
  afterAll(() => c?.close());

  it(`a missing record is resource-not-found: ${notFound} with data exactly { uri }, naming the URI`, async () => {
    for (const uri of ['invoicing://invoices/999999', 'invoicing://customers/424242']) {
      const err = await refusal(c, uri);
      expect(err.code, uri).toBe(notFound);
      expect(err.data).toEqual({ uri });
      expect(err.message).toContain(uri);
      expect(err.message).toContain('does not exist');
    }
  });

  it('a malformed URI is -32602 with reason invalid_uri, saying what a good one looks like', async () => {
    const err = await refusal(c, 'invoicing://invoices/abc');
    expect(err.code).toBe(-32602);
    expect(err.data).toEqual({ uri: 'invoicing://invoices/abc', reason: 'invalid_uri' });
    expect(err.message).toContain('invoicing://invoices/12');
    expect((await refusal(c, 'not a uri')).code).toBe(-32602);
  });

  it('titles each template with the right article', async () => {
    const { resourceTemplates } = await c.client.listResourceTemplates();
    const titles = resourceTemplates.map((t) => (t as { title?: string }).title);
    expect(titles).toContain('An invoice');
    expect(titles).not.toContain('A invoice');
  });
});

describe('the logs of those refusals', () => {
  it('hold no warning and no stack trace for them', async () => {
    const lines = http
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg?: string; err?: { stack?: string } });
    const refusals = lines.filter((l) => l.msg === 'resource read refused');
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((l) => l.level === 20)).toBe(true);
    expect(lines.filter((l) => l.level >= 40 && /not found|404|resource/i.test(JSON.stringify(l)))).toEqual([]);
    expect(lines.some((l) => l.err?.stack)).toBe(false);
  });
});
