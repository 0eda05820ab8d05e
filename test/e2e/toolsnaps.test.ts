// Every tool as the built server advertises it over stdio, against test/__toolsnaps__/<tool>.json, so a
// change to what models read shows in review. `npm run toolsnaps` (UPDATE_TOOLSNAPS=1) rewrites them.

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, connectClient } from './support/clients.js';
import { stdioHere } from './support/stdio-here.js';

const DIR = new URL('../__toolsnaps__/', import.meta.url);
// `_meta` only on tools with a view (MCP Apps): `_meta.ui.resourceUri`.
const FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', '_meta'] as const;
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1';
const FIX = 'if the change is meant, run `npm run toolsnaps` (or UPDATE_TOOLSNAPS=1 npm run test:all) and commit test/__toolsnaps__';

let mcp: Connected;
let tools: Tool[];

const snapshotOf = (tool: Tool) => Object.fromEntries(FIELDS.flatMap((f) => (tool[f] === undefined ? [] : [[f, tool[f]]])));
const stored = (): string[] =>
  readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();

beforeAll(async () => {
  mcp = await connectClient('v2', { linked: await stdioHere() });
  tools = (await mcp.client.listTools()).tools as Tool[];
  if (!UPDATE) return;
  mkdirSync(DIR, { recursive: true });
  for (const file of stored()) rmSync(new URL(file, DIR));
  for (const tool of tools) writeFileSync(new URL(`${tool.name}.json`, DIR), `${JSON.stringify(snapshotOf(tool), null, 2)}\n`);
});

afterAll(async () => {
  await mcp?.close();
});

describe('the tool snapshots', () => {
  it('are exactly the advertised tools: none missing, none left over', () => {
    expect(tools.length).toBeGreaterThan(0);
    expect(stored(), FIX).toEqual(tools.map((t) => `${t.name}.json`).sort());
  });

  it('show every field a tool advertises', () => {
    for (const tool of tools) expect(Object.keys(tool).sort(), `${tool.name}: ${FIX}`).toEqual(Object.keys(snapshotOf(tool)).sort());
  });

  it('match what tools/list advertises, field by field', () => {
    for (const tool of tools) {
      const snap = JSON.parse(readFileSync(new URL(`${tool.name}.json`, DIR), 'utf8'));
      expect(snapshotOf(tool), `${tool.name} changed: ${FIX}`).toEqual(snap);
    }
  });
});
