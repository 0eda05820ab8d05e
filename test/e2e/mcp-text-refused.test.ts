// Text no store can hold is refused as input, at the tool boundary, naming the argument: a NUL character
// (Postgres refuses it in any text column, "invalid byte sequence for encoding UTF8: 0x00") and a lone UTF-16
// surrogate, in every string argument of every tool, on a SQLite mirror and on a Postgres one. Nothing of it
// reaches a store: the server's log holds no error of one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, mirrorSetting } from '../support/postgres.js';
import { type Connected, connectClient, textOf } from './support/clients.js';
import { sandboxForFile } from './support/file-sandbox.js';
import { type HttpServerHere, spawnHttpServer } from './support/server.js';

const file = sandboxForFile();

interface Advertised {
  type?: string | string[];
  items?: Advertised;
}
interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, Advertised> };
}

const isString = (schema: Advertised | undefined): boolean =>
  schema !== undefined && (Array.isArray(schema.type) ? schema.type : [schema.type]).includes('string');

/** Each tool's arguments that take text (a string, or a list of strings), and how to send `text` in each. */
function textArguments(tools: ListedTool[]): { tool: string; argument: string; send: (text: string) => unknown }[] {
  const found = [];
  for (const tool of tools) {
    for (const [argument, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
      if (isString(schema)) found.push({ tool: tool.name, argument, send: (text: string) => text });
      else if (isString(schema.items)) found.push({ tool: tool.name, argument, send: (text: string) => [text] });
    }
  }
  return found;
}

describe.each(ENGINES)('on a %s mirror', (engine) => {
  let server: HttpServerHere;
  let c: Connected;
  beforeAll(async () => {
    server = await spawnHttpServer(['--mirror', await mirrorSetting(engine, 'text_refused')], file.env);
    c = await connectClient('v2', { http: server.url });
  });
  afterAll(async () => {
    await c?.close();
    await server?.close();
  });

  it('find_records refuses a search holding NUL, naming the argument', async () => {
    const result = await c.client.callTool({ name: 'find_records', arguments: { search: ['Tui', 'Rangi\u0000toto'] } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/search\.1: holds a NUL character/);
    expect(textOf(result)).not.toMatch(/Postgres|SQLite|byte sequence/i);
  });

  it('every string argument of every tool refuses NUL and a lone surrogate', async () => {
    const { tools } = (await c.client.listTools()) as unknown as { tools: ListedTool[] };
    const found = textArguments(tools);
    expect(found.length).toBeGreaterThan(10);
    for (const bad of ['a\u0000b', 'a\ud800b']) {
      for (const { tool, argument, send } of found) {
        const result = await c.client.callTool({ name: tool, arguments: { [argument]: send(bad) } });
        expect(result.isError, `${tool} ${argument}`).toBe(true);
        expect(textOf(result), `${tool} ${argument}`).toMatch(new RegExp(`\\b${argument}(\\.0)?: holds `));
      }
    }
    expect(server.stderr()).not.toMatch(/byte sequence|0x00/);
  });
});
