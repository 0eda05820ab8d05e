// The businesses a server serves, each its own unit (key, session, pacing, cache, mirror, events, tasks), and the
// one resolver of a call's `business`: fail closed, nothing guessed or carried over, refusals list the names.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { EventBus } from '../events/bus.js';

export interface BusinessUnit {
  /** The short name a person uses; null for the one business of a server without --businesses. */
  name: string | null;
  context: ToolContext;
  /** Where its events arrive; `wanted` starts what feeds them (its mirror) before a subscription is answered. */
  events: { bus: EventBus; live: boolean; wanted?: (() => Promise<void>) | undefined };
}

export interface Businesses {
  readonly units: readonly BusinessUnit[];
  /** More than one: every tool, resource and prompt takes the business. */
  readonly several: boolean;
}

export function businessesOf(units: readonly BusinessUnit[]): Businesses {
  if (units.length === 0) throw new Error('a server serves at least one business');
  return { units, several: units.length > 1 };
}

/** The one business of a server without --businesses (and of a hosted tenant). */
export const soleBusiness = (context: ToolContext, events: BusinessUnit['events']): Businesses =>
  businessesOf([{ name: null, context, events }]);

/** What a call, a URI or a prompt may name: every business at once. */
export const ALL = 'all';

export type Picked = { unit: BusinessUnit } | { all: readonly BusinessUnit[] } | { refusal: string };

/** The names to choose from, as a refusal says them. */
export function namesOf(businesses: Businesses): string {
  return businesses.units.map((u) => JSON.stringify(u.name)).join(', ');
}

async function byId(businesses: Businesses, id: number): Promise<BusinessUnit[]> {
  const sessions = await Promise.allSettled(businesses.units.map((u) => u.context.api.session()));
  return businesses.units.filter((_, i) => {
    const s = sessions[i];
    return s?.status === 'fulfilled' && s.value.business?.id === id;
  });
}

/**
 * The unit `value` names: a name (ignoring case) or the service's business id; `all` where `allowAll` (the
 * answers across businesses). With one business, `value` must be absent: no argument is offered then.
 */
export async function pickBusiness(businesses: Businesses, value: unknown, allowAll: boolean): Promise<Picked> {
  const [sole] = businesses.units;
  if (!businesses.several && sole) return { unit: sole };
  const choose = `name one of ${namesOf(businesses)}${allowAll ? ', or "all"' : ''}`;
  if (value === undefined || value === null || value === '')
    return {
      refusal: `Refused: this server serves several businesses and the call names none. Call again with business: ${choose}. Nothing was done.`,
    };
  const text = String(value).trim();
  if (text.toLowerCase() === ALL) {
    if (allowAll) return { all: businesses.units };
    return {
      refusal: `Refused: "all" is for the answers across businesses (report_owed, report_sales, ...); this one needs one business: ${choose}. Nothing was done.`,
    };
  }
  const named = businesses.units.filter((u) => u.name?.toLowerCase() === text.toLowerCase());
  const found = named.length > 0 ? named : /^\d{1,15}$/.test(text) ? await byId(businesses, Number(text)) : [];
  const [only] = found;
  if (found.length === 1 && only) return { unit: only };
  const what =
    found.length > 1
      ? `${JSON.stringify(text)} names more than one business`
      : `no business is called ${JSON.stringify(text.slice(0, 80))}`;
  return { refusal: `Refused: ${what}. Call again with business: ${choose}. Nothing was done.` };
}

/** How a result names its business, in words, before anything else it says. */
export const inBusiness = (unit: BusinessUnit): string => (unit.name === null ? '' : `Business: ${unit.name}.\n`);

/** The answers that take `business: "all"` (and check_connection, which without a business lists them all). */
export const ACROSS: ReadonlySet<string> = new Set([
  'report_owed',
  'report_sales',
  'report_received',
  'report_quotes',
  'report_low_stock',
  'check_connection',
]);

/**
 * The argument as tools/list shows it: its type alone, since every conversation pays for it on every tool; the
 * server's instructions name the businesses and say that the reports also take "all". Required, but for
 * check_connection, which without it lists every business. (Last: it costs fewer tokens there than first.)
 */
export function withBusinessArgument(json: Record<string, unknown>, tool: string): Record<string, unknown> {
  const properties = { ...(json.properties as Record<string, unknown> | undefined), business: { type: 'string' } };
  if (tool === 'check_connection') return { ...json, properties };
  const required = Array.isArray(json.required) ? json.required : [];
  return { ...json, properties, required: [...required, 'business'] };
}

type Standard = StandardSchemaWithJSON<Record<string, unknown>>;

/**
 * `schema` with `business` taken out before the tool's own checks and put back after, so the tool's schema
 * (and its refusal of unknown arguments) stays its own; the resolver then reads it.
 */
export function takingBusiness(schema: Standard): Standard {
  const inner = schema['~standard'];
  return {
    '~standard': {
      ...inner,
      validate: async (value: unknown) => {
        if (!value || typeof value !== 'object' || Array.isArray(value)) return inner.validate(value);
        const { business, ...rest } = value as Record<string, unknown>;
        if (business !== undefined && typeof business !== 'string' && !Number.isSafeInteger(business))
          return { issues: [{ path: ['business'], message: "business must be a business's name (or its id)" }] };
        const checked = await inner.validate(rest);
        if (checked.issues || business === undefined) return checked;
        return { value: { ...(checked.value as Record<string, unknown>), business } };
      },
    },
  } as Standard;
}

/** An answer across businesses (across-businesses.ts) passes as what it is; any other through the tool's own schema. */
export function orAcross(schema: Standard): Standard {
  const inner = schema['~standard'];
  return {
    '~standard': {
      ...inner,
      validate: (value: unknown) =>
        value && typeof value === 'object' && Array.isArray((value as { businesses?: unknown }).businesses)
          ? { value: value as Record<string, unknown> }
          : inner.validate(value),
    },
  } as Standard;
}

/** A URI of the books as `unit` serves it: invoicing://{business}/... on a server of several, as it is with one. */
export function uriIn(unit: BusinessUnit, uri: string): string {
  return unit.name === null ? uri : uri.replace(/^invoicing:\/\//, `invoicing://${encodeURIComponent(unit.name)}/`);
}

/** The unit a name (ignoring case) names, or null: for prompts and URIs, which name businesses by name. */
export function unitNamed(businesses: Businesses, name: string | undefined): BusinessUnit | null {
  if (!businesses.several) return businesses.units[0] ?? null;
  const wanted = name?.trim().toLowerCase();
  return businesses.units.find((u) => u.name?.toLowerCase() === wanted) ?? null;
}

/**
 * What a listener of every business hears (the HTTP entry's 2026-07-28 streams): each event with its own
 * business's URIs. Nothing is published through it; each business publishes on its own bus.
 */
export function heardFromAll(businesses: Businesses): EventBus {
  const [sole] = businesses.units;
  if (!businesses.several && sole) return sole.events.bus;
  return {
    publish: () => {
      throw new Error("events are published on their own business's bus");
    },
    listen(listener) {
      const offs = businesses.units.map((unit) =>
        unit.events.bus.listen((event, uris) =>
          listener(
            event,
            uris.map((uri) => uriIn(unit, uri)),
          ),
        ),
      );
      return () => {
        for (const off of offs) off();
      };
    },
    recent: () => [],
  };
}
