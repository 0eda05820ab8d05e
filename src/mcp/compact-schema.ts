// The JSON Schema a model reads costs tokens in every conversation. The zod schemas still validate in
// full (arguments before the handler runs, results before they leave); what is advertised drops what
// tells a model little: the $schema URL, safe-integer bounds, additionalProperties, long length caps,
// ids' lower bounds and patterns whose description already names the format. Outputs keep each record's own fields and types
// (nested objects and arrays by type alone), no descriptions or required lists; a list's `data` items are
// the records its get tool describes.
import * as z from 'zod/v4';

type Json = Record<string, unknown>;
const SAFE = Number.MAX_SAFE_INTEGER;

const ANNOTATIONS = new Set(['description', 'default', 'title']);

/**
 * zod writes a plain nullable field as `type: [T, "null"]`; several MCP clients read `type` as one string
 * and reject the tool or drop the field (the Inspector warns of it). So: the same field as `anyOf`, T's own
 * keywords in its branch. Nullable, not optional: absent and null are not the same answer.
 */
function typeListAsAnyOf(node: Json): Json {
  if (!Array.isArray(node.type)) return node;
  const types = node.type as string[];
  const outside: Json = {};
  const inside: Json = {};
  for (const [key, value] of Object.entries(node)) if (key !== 'type') (ANNOTATIONS.has(key) ? outside : inside)[key] = value;
  const real = types.filter((t) => t !== 'null');
  if (real.length !== 1) return { ...outside, ...inside, anyOf: types.map((type) => ({ type })) };
  return { ...outside, anyOf: [{ type: real[0], ...inside }, ...(real.length < types.length ? [{ type: 'null' }] : [])] };
}

function dropped(node: Json, key: string, value: unknown, output: boolean): boolean {
  if (key === '$schema' || key === 'additionalProperties') return true;
  if ((key === 'maximum' && value === SAFE) || (key === 'minimum' && value === -SAFE)) return true;
  if (key === 'maxLength' && typeof value === 'number' && value >= 255) return true;
  if (key === 'minLength' && value === 1) return true;
  if (key === 'pattern' && (typeof node.description === 'string' || typeof node.format === 'string')) return true;
  return output && (key === 'description' || key === 'required' || key === 'title');
}

/** `anyOf` of plain types (number or decimal string) by type alone; the description says the rest. */
function collapsePrimitiveUnion(node: Json): Json {
  const anyOf = node.anyOf as Json[] | undefined;
  if (
    !anyOf ||
    typeof node.description !== 'string' ||
    !anyOf.every((s) => typeof s.type === 'string' && s.type !== 'object' && s.type !== 'array')
  ) {
    return node;
  }
  return { ...node, anyOf: anyOf.map((s) => ({ type: s.type })) };
}

function compact(node: unknown, output: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => compact(n, output));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (dropped(node as Json, key, value, output)) continue;
    out[key] = key === 'properties' ? mapValues(value as Json, output) : compact(value, output);
  }
  const one = typeListAsAnyOf(out);
  return output ? one : collapsePrimitiveUnion(one);
}

/** An output's nested objects and arrays by type alone: the record's own fields keep their types. */
function shallow(schema: Json): Json {
  const props = schema.properties as Record<string, Json> | undefined;
  if (!props) return schema;
  const outer = (node: Json): Json => {
    if (Array.isArray(node.anyOf)) return { ...node, anyOf: (node.anyOf as Json[]).map(outer) };
    const { properties: _p, items: _i, ...rest } = node;
    return node.type === 'object' || node.items ? rest : node;
  };
  return { ...schema, properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, outer(v)])) };
}

/** A list's output: `data` as an array of objects (the get tool gives their fields) and `meta`. */
function compactList(schema: Json): Json {
  const props = schema.properties as Json | undefined;
  if ((props?.data as Json | undefined)?.type !== 'array') return schema;
  return { ...schema, properties: { ...props, data: { type: 'array' }, meta: { type: 'object' } } };
}

/** An id's lower bound (> 0) says nothing new: its description names the tool that gives it. */
function withoutIdFloor(key: string, node: unknown): unknown {
  if (!(key === 'id' || key.endsWith('_id')) || !node || typeof node !== 'object') return node;
  const { exclusiveMinimum, minimum, ...rest } = node as Json;
  return exclusiveMinimum === 0 || minimum === 1 ? rest : node;
}

function mapValues(props: Json, output: boolean): Json {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, withoutIdFloor(k, compact(v, output))]));
}

/** The compact JSON Schema a tool advertises for a zod schema. */
export function advertisedJson(schema: z.ZodType, kind: 'input' | 'output'): Json {
  const json = compact(z.toJSONSchema(schema, { io: kind, unrepresentable: 'any' }), kind === 'output') as Json;
  return kind === 'output' ? compactList(shallow(json)) : json;
}
