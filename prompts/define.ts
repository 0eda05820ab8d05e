// A prompt is data: a name, words for the person picking it, arguments (some completed from the books),
// and the text it hands the model.
import type * as z from 'zod/v4';
import type { ToolContext } from '../tools/context.js';

export interface PromptDefinition<A extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The tools its text sends the model to: offered only while all of them are shown (src/mcp/select-tools.ts). */
  tools: readonly string[];
  /**
   * Built per server, so completions can read the books through the context's client: `contextFor` gives the
   * context of the business the prompt's arguments name (null when they name none a server of several knows).
   */
  args(contextFor: ContextFor): A;
  /** `books`: whether the books mirror (and so the answer tools) is on. */
  text(args: z.infer<A>, books: boolean): string;
}

export type ContextFor = (args?: Record<string, string>) => ToolContext | null;

export function definePrompt<A extends z.ZodObject>(prompt: PromptDefinition<A>): PromptDefinition<A> {
  return prompt;
}
