// A client that opts into MCP Tasks as an application would: the SDK's Client (v2) for the connection and
// @modelcontextprotocol/ext-tasks for tools/call and tasks/*, whose 2026-07-28 task shapes the SDK's codec does
// not decode, so the extension sends them itself (its `rawDispatch`): one JSON-RPC POST to /mcp each, with the
// revision's standard headers.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type JsonRpcResponse, type TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const REVISION = '2026-07-28';
const CLIENT_INFO = { name: 'tasks-test', version: '1.0.0' };

export interface TaskClient {
  client: Client;
  session: TaskEnabledSession;
  /** One JSON-RPC request as the extension sends it (tasks/get, tasks/cancel by hand). */
  raw(method: string, params: Record<string, unknown>): Promise<JsonRpcResponse>;
  close(): Promise<void>;
}

let nextId = 1;

function rawDispatcher(url: string, token: string | undefined) {
  return async (request: unknown): Promise<JsonRpcResponse> => {
    const body = request as { method: string; params?: Record<string, unknown> };
    const name = body.params?.name ?? body.params?.taskId;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': body.method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      // The extension hands over the method and params; the id is the coordinator's (here, this client's).
      body: JSON.stringify({ jsonrpc: '2.0', id: `task-${nextId++}`, ...body }),
    });
    const text = await response.text();
    // An answer over SSE carries the JSON-RPC response as its last data line.
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? JSON.parse(
          text
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .at(-1)
            ?.slice(6) ?? '{}',
        )
      : JSON.parse(text);
    if (json.error) return { kind: 'error', error: json.error };
    return { kind: 'result', result: json.result };
  };
}

export async function connectTaskClient(url: string, token?: string): Promise<TaskClient> {
  const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
  const client = new Client(CLIENT_INFO, { capabilities, versionNegotiation: { mode: { pin: REVISION } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} } }),
  );
  const rawDispatch = rawDispatcher(url, token);
  const session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch: rawDispatch as never,
    v2RequestFraming: { protocolVersion: REVISION, clientInfo: CLIENT_INFO, clientCapabilities: capabilities },
  });
  return {
    client,
    session,
    raw: (method, params) =>
      rawDispatch({
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
            'io.modelcontextprotocol/clientCapabilities': capabilities,
          },
        },
      }),
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}
