// Checks answers against the zod schemas without copying them. The schemas in schemas.ts are lenient
// (loose objects, no defaults, no transforms), so an answer that passes is its own parse result: a check
// compiled from the schema tests it in place, and zod itself runs only to explain a failure. Any schema
// part the compiler does not know is checked by zod, so the two never disagree.
import type { z } from 'zod';

type Check = (value: unknown) => boolean;

interface ZodDef {
  type: string;
  checks?: Array<{ _zod: { def: { check?: string; format?: string } } }>;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
}

const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

function byZod(schema: z.ZodType): Check {
  return (value) => schema.safeParse(value).success;
}

function isSafeIntCheck(c: { _zod: { def: { check?: string; format?: string } } }): boolean {
  return c._zod.def.check === 'number_format' && c._zod.def.format === 'safeint';
}

function compile(schema: z.ZodType): Check {
  const def = defOf(schema);
  const checks = def.checks ?? [];
  switch (def.type) {
    case 'string':
      return checks.length === 0 ? (v) => typeof v === 'string' : byZod(schema);
    case 'boolean':
      return checks.length === 0 ? (v) => typeof v === 'boolean' : byZod(schema);
    case 'number':
      if (checks.length === 0) return (v) => typeof v === 'number' && Number.isFinite(v);
      if (checks.length === 1 && isSafeIntCheck(checks[0] as never)) return (v) => Number.isSafeInteger(v);
      return byZod(schema);
    case 'unknown':
    case 'any':
      return () => true;
    case 'nullable': {
      const inner = compile(def.innerType as z.ZodType);
      return (v) => v === null || inner(v);
    }
    case 'optional': {
      const inner = compile(def.innerType as z.ZodType);
      return (v) => v === undefined || inner(v);
    }
    case 'array': {
      if (checks.length > 0) return byZod(schema);
      const element = compile(def.element as z.ZodType);
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'object':
      return compileObject(schema, def);
    default:
      return byZod(schema);
  }
}

function compileObject(schema: z.ZodType, def: ZodDef): Check {
  // Only a loose object passes unknown keys through unchanged; others may strip or refuse them.
  if ((def.checks ?? []).length > 0 || !def.catchall || defOf(def.catchall).type !== 'unknown') return byZod(schema);
  const fields = Object.entries(def.shape ?? {}).map(([key, s]) => [key, compile(s)] as const);
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const o = v as Record<string, unknown>;
    for (let i = 0; i < fields.length; i++) {
      const [key, check] = fields[i] as readonly [string, Check];
      if (!check(o[key])) return false;
    }
    return true;
  };
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; path: string; message: string };

export interface Decoder<S extends z.ZodType> {
  readonly schema: S;
  decode(value: unknown): Decoded<z.output<S>>;
}

/** A decoder for `schema`: the compiled check first, zod's parse (and its first issue) on failure. */
export function decoder<S extends z.ZodType>(schema: S): Decoder<S> {
  const check = compile(schema);
  return {
    schema,
    decode(value) {
      if (check(value)) return { ok: true, value: value as z.output<S> };
      const parsed = schema.safeParse(value);
      if (parsed.success) return { ok: true, value: parsed.data };
      const issue = parsed.error.issues[0];
      return {
        ok: false,
        path: issue && issue.path.length > 0 ? issue.path.join('.') : 'body',
        message: issue?.message ?? 'invalid',
      };
    },
  };
}
