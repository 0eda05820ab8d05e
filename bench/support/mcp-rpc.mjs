// One stateless MCP request of protocol revision 2026-07-28 over Streamable HTTP, as a bench's client sends it;
// with `tasks`, the tasks extension (io.modelcontextprotocol/tasks) declared on it.
const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

let id = 0;
/** One stateless 2026-07-28 request; with `tasks`, the extension declared on it. */
export async function rpc(url, method, params, tasks, client = 'bench') {
  const capabilities = tasks ? { extensions: { [TASKS]: {} } } : {};
  const name = params.name ?? params.taskId;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': REVISION,
          'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('text/event-stream')
    ? JSON.parse(
        text
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .at(-1)
          .slice(6),
      )
    : JSON.parse(text);
  if (json.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}
