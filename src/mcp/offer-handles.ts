// The tools, prompts and resources registered on one instance, by name, so that what a key turns out not to
// be able to use can be withdrawn from a live session (the SDK's remove() sends the list_changed notices).
import type { McpServer } from '@modelcontextprotocol/server';

type Handle = { remove(): void };
const KINDS = ['registerTool', 'registerPrompt', 'registerResource'] as const;
export type OfferHandles = Record<(typeof KINDS)[number], Map<string, Handle>>;

/** From now on, records every registration on `server` with its handle. */
export function recordOffers(server: McpServer): OfferHandles {
  const handles = { registerTool: new Map(), registerPrompt: new Map(), registerResource: new Map() } as OfferHandles;
  for (const kind of KINDS) {
    const register = (server[kind] as (name: string, ...rest: unknown[]) => Handle).bind(server);
    (server as unknown as Record<string, unknown>)[kind] = (name: string, ...rest: unknown[]) => {
      const handle = register(name, ...rest);
      handles[kind].set(name, handle);
      return handle;
    };
  }
  return handles;
}

/** Removes from `own` every registration whose name `kept` has not. */
export function withdrawBeyond(own: OfferHandles, kept: OfferHandles): void {
  for (const kind of KINDS)
    for (const [name, handle] of own[kind])
      if (!kept[kind].has(name)) {
        handle.remove();
        own[kind].delete(name);
      }
}
