// Arguments that would mislead the model are refused with a tool error that says what to fix, over both
// protocol eras: an unknown name (which used to be dropped, so a "filtered" list came back whole), an
// idempotency key that cannot travel as a header, broken Unicode, an over-long filter, and resource ids
// spelled other than in decimal digits. A normal call follows each refusal. Both clients talk to one server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient, type Sdk, textOf } from './support/clients.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { type HttpServer, spawnHttpServer } from './support/server.js';

const file = sandboxForFile();
let server: HttpServer;
beforeAll(async () => {
  server = await spawnHttpServer([], file.env);
});
afterAll(() => server?.close());

describe.each(['v2', 'v1'] as Sdk[])('the %s client', (sdk) => {
  let c: Connected;
  beforeAll(async () => {
    c = await connectClient(sdk, { http: server.url });
  });
  afterAll(() => c?.close());

  const refused = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = await c.client.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    return textOf(result);
  };

  const normalCallWorks = async (): Promise<void> => {
    const listed = await c.client.callTool({ name: 'list_customers', arguments: { search: 'Rangitoto', per_page: 5 } });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent.data.length).toBeGreaterThan(0);
    expect(listed.structuredContent.data.every((x: { name: string }) => x.name.includes('Rangitoto'))).toBe(true);
  };

  it('an unknown argument is refused, naming it and the ones the tool takes', async () => {
    const text = await refused('list_customers', { name: 'Rangitoto' });
    expect(text).toContain('unknown argument "name"');
    expect(text).toContain('list_customers takes page, per_page, updated_since, status, search');
    const nested = await refused('create_customer', { name: 'Nested Ltd', address: { line1: '1 Quay St', town: 'Auckland' } });
    expect(nested).toContain('unknown field "town" in address');
    await normalCallWorks();
  });

  it.each(['constructor', 'valueOf', 'hasOwnProperty'])('an argument named %j is refused as unknown', async (key) => {
    const text = await refused('list_customers', { [key]: 1 });
    expect(text).toContain(`unknown argument "${key}": list_customers takes page`);
    await normalCallWorks();
  });

  it.each(['key\r\nX-Evil: 1', 'ключ-идемпотентности', 'with space'])(
    'an idempotency key %j is refused before anything is sent',
    async (key) => {
      const text = await refused('create_customer', { name: 'Key Test Ltd', idempotency_key: key });
      expect(text).toContain('idempotency_key: printable ASCII only');
      expect(text).not.toMatch(/did not answer|retry/i);
      await normalCallWorks();
    },
  );

  it('a lone surrogate is refused clearly, and so is a search longer than 255 characters', async () => {
    expect(await refused('list_customers', { search: 'Rangi\ud800' })).toContain('search: holds broken text (a lone UTF-16 surrogate');
    expect(await refused('list_invoices', { sales_channel: 'p'.repeat(256) })).toMatch(
      /sales_channel: Too big: expected string to have <=255 characters/,
    );
    expect(await refused('list_customers', { search: 's'.repeat(256) })).toContain('search');
    await normalCallWorks();
  });

  it('a resource id in hex or exponent form names no record; the decimal one reads', async () => {
    for (const id of ['0x10', '1e1', '016']) {
      await expect(c.client.readResource({ uri: `invoicing://invoices/${id}` })).rejects.toThrow(/positive whole number/);
    }
    const read = await c.client.readResource({ uri: 'invoicing://invoices/16' });
    expect(JSON.parse(read.contents[0]?.text as string).id).toBe(16);
  });
});
