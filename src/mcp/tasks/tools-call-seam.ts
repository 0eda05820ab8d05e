// The one place that reaches into the SDK's private state, and why. A task is the answer of a tools/call
// (`resultType: 'task'`), but the SDK (v2.4) runs no task of a tools/call on a server: McpServer's tools/call
// handler checks what a tool returns against its output schema and projects it as a CallToolResult, and the
// request-handler map around it has no public reader (`_getRequestHandler` is protected; `setRequestHandler`
// would replace McpServer's handler, not wrap it). So the handler McpServer registered is wrapped where the
// SDK keeps it. If an SDK release renames that map, `wrapToolsCall` throws at the first server made rather
// than serve tasks' clients without tasks unnoticed (every end-to-end test fails at once).
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';

export type RequestHandler = (request: unknown, ctx: ServerContext) => Promise<unknown>;

/** Replaces the server's tools/call handler by `wrap(the handler McpServer registered)`, when it registered one. */
export function wrapToolsCall(server: McpServer, wrap: (inner: RequestHandler) => RequestHandler): void {
  const handlers = (server.server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) throw new Error('The SDK keeps its request handlers elsewhere now: tasks/tools-call-seam.ts needs them');
  const inner = handlers.get('tools/call') as RequestHandler | undefined;
  if (inner) handlers.set('tools/call', wrap(inner));
}
