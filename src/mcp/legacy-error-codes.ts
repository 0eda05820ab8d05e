// A missing resource, in the words of each revision: 2025-11-25 names it -32002, 2026-07-28 requires -32602
// with data exactly { uri }. The SDK sends the 2026 code on every revision, so a connection on the 2025
// handshake has its resource-not-found answers renamed to the code its revision (and its clients) expect.
import type { McpServer } from '@modelcontextprotocol/server';
import type { ServingUnit } from './serving-unit.js';

export const RESOURCE_NOT_FOUND_2025 = -32002;
const INVALID_PARAMS = -32602;

type Sent = Parameters<Parameters<McpServer['connect']>[0]['send']>[0];

export function legacyResourceNotFound(server: McpServer, unit: ServingUnit): void {
  if (unit.era !== 'legacy') return;
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(renamed(message), options);
    return connect(transport);
  };
}

function renamed(message: Sent): Sent {
  if (!('error' in message) || message.error.code !== INVALID_PARAMS || !namesOnlyAUri(message.error.data)) return message;
  return { ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND_2025 } };
}

/** The SDK's mark of resource-not-found: a -32602 whose data is { uri } and nothing else. */
function namesOnlyAUri(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const keys = Object.keys(data);
  return keys.length === 1 && keys[0] === 'uri' && typeof (data as { uri: unknown }).uri === 'string';
}
