// Puts the selected tools on a server instance: schemas and hints from the registry, every call through
// the one error boundary, creates through the confirmation step when --confirm-writes is on.
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { ToolContext } from '../../tools/context.js';
import type { ToolDefinition } from '../../tools/index.js';
import { advertised } from './compact-schema.js';
import { confirmWrite } from './confirm.js';
import { errorResult } from './tool-errors.js';

export interface ToolRuntime {
  context: ToolContext;
  confirmWrites: boolean;
}

async function run(tool: ToolDefinition, runtime: ToolRuntime, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const outcome = await tool.handler(runtime.context, args);
    return { content: [{ type: 'text', text: outcome.text }], structuredContent: outcome.structured as Record<string, unknown> };
  } catch (err) {
    runtime.context.logger.warn({ tool: tool.name, err }, 'tool call refused or failed');
    return errorResult(err, tool.name, args);
  }
}

export function registerTools(server: McpServer, tools: readonly ToolDefinition[], runtime: ToolRuntime): void {
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: advertised(tool.input, 'input'),
        outputSchema: advertised(tool.output, 'output'),
        annotations: { ...tool.annotations },
      },
      async (args: Record<string, unknown>, ctx: ServerContext) => {
        if (runtime.confirmWrites && tool.write) {
          const write = tool.write;
          const confirmation = await confirmWrite(server, ctx, async () => {
            try {
              return await write.summarize(runtime.context, args);
            } catch {
              return `Run ${tool.name} with ${JSON.stringify(args)}?`;
            }
          });
          if (!confirmation.proceed) return confirmation.result;
        }
        return run(tool, runtime, args);
      },
    );
  }
}
