// What an instance that answers one request needs on it. A stateless HTTP request gets an instance of its
// own; one that calls a tool needs that tool, not every other tool, the resources and the prompts, and an
// instance that small is cheap to build and to collect. What the server offers is told by discovery and
// initialize, and anything not recognised here (those, ping, listen, subscribe...) gets everything, so a
// client is never told less.
export interface Surface {
  /** Every tool, none, or the one named. */
  tools: 'all' | 'none' | { only: string };
  resources: boolean;
  prompts: boolean;
}

export const EVERYTHING: Surface = { tools: 'all', resources: true, prompts: true };

export function surfaceFor(message: unknown, toolNames: ReadonlySet<string>): Surface {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return EVERYTHING;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } | null };
  switch (method) {
    case 'tools/call': {
      // An unknown name meets every tool, so the SDK answers it as it always does.
      const name = params?.name;
      return { tools: typeof name === 'string' && toolNames.has(name) ? { only: name } : 'all', resources: false, prompts: false };
    }
    case 'tools/list':
      return { tools: 'all', resources: false, prompts: false };
    case 'prompts/list':
    case 'prompts/get':
      return { tools: 'none', resources: false, prompts: true };
    case 'resources/list':
    case 'resources/templates/list':
    case 'resources/read':
      return { tools: 'none', resources: true, prompts: false };
    case 'completion/complete':
      return { tools: 'none', resources: true, prompts: true };
    default:
      return EVERYTHING;
  }
}
