// Registers the prompts of prompts/ on server instances. Their argument schemas (with the completions
// that read the books) are built once, for the first instance that needs them, and shared by every
// instance after: a stateless HTTP request builds a server of its own, and must not pay for zod again.
import { completable, type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { PROMPTS } from '../../prompts/index.js';
import { type Businesses, namesOf, unitNamed } from './businesses.js';
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

/** A server of several: the prompt names its business, whose books its completions read and its calls name. */
function businessArgument(businesses: Businesses) {
  const names = businesses.units.map((u) => u.name ?? '');
  return completable(z.string().min(1).describe('Which business'), (value: string) =>
    names.filter((n) => n.toLowerCase().startsWith(value.toLowerCase())),
  );
}

function forBusiness(businesses: Businesses, name: string | undefined): string {
  if (!businesses.several) return '';
  const unit = unitNamed(businesses, name);
  if (!unit?.name)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `No business is called ${JSON.stringify(name ?? '')}: name one of ${namesOf(businesses)}`,
    );
  return `For the business "${unit.name}": name it in every call (business: "${unit.name}").\n`;
}

function buildPrompts(businesses: Businesses, shown: readonly { name: string }[]): BuiltPrompt[] {
  schemaBuilds++;
  const contextFor = (args?: Record<string, string>) => unitNamed(businesses, args?.business)?.context ?? null;
  const books = businesses.units.every((u) => u.context.books != null);
  return reachedBy(PROMPTS, shown).map((prompt) => {
    const own = prompt.args(contextFor);
    return {
      name: prompt.name,
      config: {
        title: prompt.title,
        description: prompt.description,
        argsSchema: businesses.several ? own.extend({ business: businessArgument(businesses) }) : own,
      },
      callback: (args) => {
        const text = `${forBusiness(businesses, args.business as string | undefined)}${prompt.text(args as never, books)}`;
        return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
      },
    };
  });
}

/**
 * Puts the prompts the `shown` tools reach on an instance; the schemas are built on the first call and
 * reused by the rest.
 */
export function promptRegistrar(businesses: Businesses, shown: readonly { name: string }[]): (server: McpServer) => void {
  let built: BuiltPrompt[] | null = null;
  return (server) => {
    built ??= buildPrompts(businesses, shown);
    for (const prompt of built) server.registerPrompt(prompt.name, prompt.config, prompt.callback as never);
  };
}
