// Registers the prompts of prompts/ on server instances. Their argument schemas (with the completions
// that read the books) are built once, for the first instance that needs them, and shared by every
// instance after: a stateless HTTP request builds a server of its own, and must not pay for zod again.
import type { McpServer } from '@modelcontextprotocol/server';
import type * as z from 'zod/v4';
import { PROMPTS } from '../../prompts/index.js';
import type { ToolContext } from '../../tools/context.js';
import { reachedBy } from './select-tools.js';

type PromptConfig = { title: string; description: string; argsSchema: z.ZodObject };
type PromptCallback = (args: Record<string, unknown>) => { messages: { role: 'user'; content: { type: 'text'; text: string } }[] };

interface BuiltPrompt {
  name: string;
  config: PromptConfig;
  callback: PromptCallback;
}

let schemaBuilds = 0;

/** How many times this process has built the prompts' argument schemas (a test holds it at one). */
export const promptSchemaBuilds = (): number => schemaBuilds;

function buildPrompts(ctx: ToolContext, shown: readonly { name: string }[]): BuiltPrompt[] {
  schemaBuilds++;
  return reachedBy(PROMPTS, shown).map((prompt) => ({
    name: prompt.name,
    config: { title: prompt.title, description: prompt.description, argsSchema: prompt.args(ctx) },
    callback: (args) => ({
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(args as never, ctx.books != null) } }],
    }),
  }));
}

/**
 * Puts the prompts the `shown` tools reach on an instance; the schemas are built on the first call and
 * reused by the rest.
 */
export function promptRegistrar(ctx: ToolContext, shown: readonly { name: string }[]): (server: McpServer) => void {
  let built: BuiltPrompt[] | null = null;
  return (server) => {
    built ??= buildPrompts(ctx, shown);
    for (const prompt of built) server.registerPrompt(prompt.name, prompt.config, prompt.callback as never);
  };
}
