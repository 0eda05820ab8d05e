// STYLE rule 12: what every tool of the registry must carry for the model reading it, checked over
// src/mcp/registry.ts so a new tool cannot skip a hint, a scope, a description or the API's own names.
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { TOOLS, TOOLSETS, type ToolDefinition } from '../../src/mcp/registry.js';
import { CREATE_HINTS, READ_HINTS } from '../../tools/define.js';
import { API_NAMES, API_REQUIRED, PLAIN_PROPERTIES } from '../support/api-names.js';

type Json = Record<string, unknown>;

const ROOT = new URL('../../', import.meta.url).pathname;
const VERBS = ['list', 'get', 'create', 'check', 'report', 'find'];
/** Answers sum and search the books mirror; they are read tools that neither page nor take an id. */
const ANSWER_VERBS = ['report', 'find'];
const DESCRIPTION_CHARS = { min: 20, max: 200 };
const names = new Set(TOOLS.map((t) => t.name));
const inputJson = (tool: ToolDefinition): Json => z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Json;
const props = (schema: Json): Record<string, Json> => (schema.properties ?? {}) as Record<string, Json>;

/** Every property of an input, nested objects and array items included, with its path. */
function allProperties(schema: Json, path = ''): Array<[string, string, Json]> {
  return Object.entries(props(schema)).flatMap(([key, value]) => {
    const here = `${path}${key}`;
    const items = value.items as Json | undefined;
    return [
      [here, key, value] as [string, string, Json],
      ...allProperties(value, `${here}.`),
      ...(items ? allProperties(items, `${here}[].`) : []),
    ];
  });
}

/** Why a property must be described, or null when its API name and type say enough. */
function needsDescription(key: string, node: Json): string | null {
  if (key === 'id' || key.endsWith('_id')) return 'an id must say which tool gives it';
  if (typeof node.pattern === 'string' && typeof node.format !== 'string') return 'a formatted string must name its format';
  if (node.anyOf || node.oneOf) return 'a union must say which form to send';
  if (!PLAIN_PROPERTIES.has(key)) return 'it is not one of the plain API names (test/support/api-names.ts)';
  return null;
}

describe.each(TOOLS.map((t) => [t.name, t] as const))('tool %s', (name, tool) => {
  it('is named verb_noun in snake_case, with a title', () => {
    expect(name).toMatch(/^[a-z]+(_[a-z]+)+$/);
    expect(VERBS).toContain(name.split('_')[0]);
    expect(tool.title.length).toBeGreaterThan(3);
    expect(tool.title).not.toBe(name);
  });

  it('lives in the file of its toolset, or an answer in its own room of src/answers/, in a file of its name', async () => {
    expect(TOOLSETS).toContain(tool.toolset);
    const file = tool.books
      ? readdirSync(`${ROOT}src/answers`)
          .map((room) => `src/answers/${room}/${name.replaceAll('_', '-')}.ts`)
          .filter((path) => existsSync(`${ROOT}${path}`))
      : [`tools/${tool.toolset}.ts`];
    expect(file).toHaveLength(1);
    const module = (await import(`${ROOT}${file[0]}`)) as Record<string, { name?: string }>;
    expect(Object.values(module).some((exported) => exported === tool)).toBe(true);
  });

  it('has a short description that is not its title and gives no orders', () => {
    expect(tool.description.length).toBeGreaterThanOrEqual(DESCRIPTION_CHARS.min);
    expect(tool.description.length).toBeLessThanOrEqual(DESCRIPTION_CHARS.max);
    expect(tool.description.toLowerCase()).not.toBe(tool.title.toLowerCase());
    expect(tool.description).not.toMatch(/IMPORTANT|you must/i);
  });

  it('carries the four hints of a read or of a create, and a scope of its toolset', () => {
    if (tool.write) {
      expect(name.startsWith('create_')).toBe(true);
      expect(tool.annotations).toEqual(CREATE_HINTS);
      expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
      expect(tool.scope).toBe(`${tool.toolset}.write`);
    } else {
      expect(name.startsWith('create_')).toBe(false);
      expect(tool.annotations).toEqual(READ_HINTS);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      expect(tool.scope).toBe(tool.toolset === 'connection' ? null : `${tool.toolset}.read`);
    }
  });

  it('takes an object, no union at the top, and names its arguments as the API does', () => {
    const input = inputJson(tool);
    expect(input.type).toBe('object');
    for (const key of ['anyOf', 'oneOf', 'allOf']) expect(input).not.toHaveProperty(key);
    expect(API_NAMES[name], `add ${name} to test/support/api-names.ts`).toBeDefined();
    expect(Object.keys(props(input)).filter((k) => !API_NAMES[name]?.includes(k))).toEqual([]);
    for (const field of API_REQUIRED[name] ?? []) expect(input.required).toContain(field);
  });

  it('describes every property that needs it; ids name a tool of the registry that gives them', () => {
    for (const [path, key, node] of allProperties(inputJson(tool))) {
      const why = needsDescription(key, node);
      if (why) expect(typeof node.description, `${name}.${path}: ${why}`).toBe('string');
      const from = /^From (\w+)/.exec(String(node.description ?? ''))?.[1];
      if (from) expect(names.has(from), `${name}.${path}: ${from} is not a tool`).toBe(true);
    }
  });

  it('reads the books mirror exactly when it answers (report_, find_), so --mirror off hides it', () => {
    expect(tool.books === true).toBe(ANSWER_VERBS.includes(name.split('_')[0] ?? ''));
  });

  it('pages (page, per_page) exactly when it lists', () => {
    expect('per_page' in props(inputJson(tool))).toBe(name.startsWith('list_'));
    expect('page' in props(inputJson(tool))).toBe(name.startsWith('list_'));
  });

  it('has an output schema: an object, with data and meta on a list', () => {
    const output = z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' }) as Json;
    expect(output.type).toBe('object');
    expect(Object.keys(props(output)).length).toBeGreaterThan(0);
    if (name.startsWith('list_')) expect(Object.keys(props(output))).toEqual(['data', 'meta']);
  });
});

const lists = TOOLS.filter((t) => t.name.startsWith('list_'));
const gets = TOOLS.filter((t) => t.name.startsWith('get_'));

describe.each(lists.map((t) => [t.name, t] as const))('list tool %s', (_name, tool) => {
  it('bounds per_page to 1..100 and page from 1', () => {
    const input = props(inputJson(tool));
    expect(input.per_page).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(input.page).toMatchObject({ type: 'integer', minimum: 1 });
  });
});

describe.each(gets.map((t) => [t.name, t] as const))('get tool %s', (name, tool) => {
  it('takes one id, described as coming from the list tool of its toolset', () => {
    const input = inputJson(tool);
    expect(Object.keys(props(input))).toEqual(['id']);
    expect(input.required).toEqual(['id']);
    const list = `list_${tool.toolset}`;
    expect(names.has(list)).toBe(true);
    // get_invoice also takes the number people quote (INV-00421).
    const id = props(input).id ?? {};
    expect(id.description).toBe(name === 'get_invoice' ? `From ${list}, or the number (INV-00421)` : `From ${list}`);
    expect(id.type ?? (id.anyOf as Json[] | undefined)?.map((s) => s.type)).toEqual(
      name === 'get_invoice' ? ['integer', 'string'] : 'integer',
    );
  });
});

describe('the registry', () => {
  it('has unique names, a tool in every toolset, lists and gets in pairs', () => {
    expect(lists.length).toBeGreaterThan(0);
    expect(gets.map((t) => t.toolset)).toEqual(lists.map((t) => t.toolset));
    expect(names.size).toBe(TOOLS.length);
    expect(new Set(TOOLS.map((t) => t.toolset))).toEqual(new Set(TOOLSETS));
  });
});
