// Registers the prompts of prompts/ on a server instance.
import type { McpServer } from '@modelcontextprotocol/server';
import { PROMPTS } from '../../prompts/index.js';
import type { ToolContext } from '../../tools/context.js';

export function registerPrompts(server: McpServer, ctx: ToolContext): void {
  for (const prompt of PROMPTS) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: prompt.args(ctx) },
      (args: Record<string, unknown>) => ({
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(args as never, ctx.books != null) } }],
      }),
    );
  }
}
