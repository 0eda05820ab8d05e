// Tool arguments are taken as given or refused, never quietly changed: a name the tool does not know is
// refused (naming it and the names the tool takes), so a model cannot believe it filtered on a field that
// was dropped; and text no store can hold (a lone UTF-16 surrogate, broken Unicode; a NUL, which Postgres
// refuses in any text) is refused before it reaches a store or the service and fails deep inside with a
// confusing message. The walk follows the tool's schema, so its depth is the schema's.
import type { StandardSchemaV1, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

type Issue = StandardSchemaV1.Issue;
type Path = (string | number)[];

/** The schema under optional, nullable, default and pipe wrappers, through zod's public API. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let i = 0; i < 10; i++) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else return current;
  }
  return current;
}

const where = (path: Path): string =>
  path.length === 0 ? '' : ` in ${path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')}`;

function walk(toolName: string, schema: z.ZodType, value: unknown, path: Path, issues: Issue[]): void {
  if (typeof value === 'string') {
    if (/[\uD800-\uDFFF]/u.test(value)) {
      issues.push({ path, message: 'holds broken text (a lone UTF-16 surrogate, half of a character): send it as valid Unicode' });
    }
    if (value.includes('\u0000')) {
      issues.push({ path, message: 'holds a NUL character (U+0000), which the books cannot keep: send the text without it' });
    }
    return;
  }
  const inner = unwrap(schema);
  if (inner instanceof z.ZodArray && Array.isArray(value)) {
    value.forEach((item, i) => {
      walk(toolName, inner.element as z.ZodType, item, [...path, i], issues);
    });
    return;
  }
  if (!(inner instanceof z.ZodObject) || !value || typeof value !== 'object' || Array.isArray(value)) return;
  const shape = inner.shape as Record<string, z.ZodType>;
  const known = Object.keys(shape);
  for (const [key, v] of Object.entries(value)) {
    // Own keys only: `constructor` or `valueOf` is an unknown argument, not a property of every object.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (field) {
      walk(toolName, field, v, [...path, key], issues);
      continue;
    }
    const noun = path.length === 0 ? 'argument' : 'field';
    const owner = path.length === 0 ? toolName : 'that object';
    issues.push({
      path: [],
      message: `unknown ${noun} ${JSON.stringify(key)}${where(path)}: ${owner} takes ${known.join(', ')}. Nothing was done; call again without it.`,
    });
  }
}

/** What is wrong with `args` beyond what the schema itself checks; empty when nothing. */
export function argumentProblems(toolName: string, schema: z.ZodType, args: unknown): Issue[] {
  const issues: Issue[] = [];
  walk(toolName, schema, args ?? {}, [], issues);
  return issues;
}

/** `advertised` (a deferred schema) with the checks above run first, against the tool's loaded zod schema. */
export function strictInput(
  toolName: string,
  advertised: StandardSchemaWithJSON<Record<string, unknown>>,
  load: () => Promise<z.ZodType>,
): StandardSchemaWithJSON<Record<string, unknown>> {
  const inner = advertised['~standard'];
  return {
    '~standard': {
      ...inner,
      validate: async (value: unknown) => {
        const issues = argumentProblems(toolName, await load(), value);
        return issues.length > 0 ? { issues } : inner.validate(value);
      },
    },
  } as StandardSchemaWithJSON<Record<string, unknown>>;
}
