// Real SDK clients on the spawned server: the v2 client pinned to 2026-07-28 and the v1 client on the
// 2025-11-25 handshake, each over stdio or Streamable HTTP, with or without an elicitation handler.
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { compiledOnce, compiledOnceV2 } from '../../support/schema-validators.js';
import type { StdioCommand } from './server.js';

export type Sdk = 'v2' | 'v1';
/** A server inside the test worker: the client's end of its transport, and how to stop it. */
export interface LinkedServer {
  transport: { start(): Promise<void>; send(message: any): Promise<void>; close(): Promise<void> };
  close(): Promise<void>;
}
export type Via = { stdio: StdioCommand } | { http: string; token?: string } | { linked: LinkedServer };

/** The protocol version each SDK is expected to settle on with our server. */
export const EXPECTED_VERSION: Record<Sdk, string> = { v2: '2026-07-28', v1: '2025-11-25' };

export interface Elicitation {
  message: string;
  requestedSchema: unknown;
}
export type ElicitAnswer =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' };

export interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: any;
  isError?: boolean;
}

/** What the tests use of either SDK's client; both spell these the same. */
export interface McpClient {
  listTools(): Promise<{ tools: { name: string; annotations?: Record<string, unknown> }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolResult>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string; name: string }[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; mimeType?: string; text?: string }[] }>;
  listPrompts(): Promise<{ prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: { role: string; content: any }[] }>;
  complete(params: {
    ref: { type: 'ref/prompt'; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
}

export interface Connected {
  sdk: Sdk;
  client: McpClient;
  protocolVersion: string | undefined;
  /** Every elicitation the server sent (or embedded in an input_required result), in order. */
  elicitations: Elicitation[];
  /** Transport or protocol errors the client saw, e.g. a non-protocol line on stdout. */
  errors: Error[];
  /** Every JSON-RPC message the client received after the handshake. */
  received: any[];
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Answers elicitations; without it the client advertises no elicitation support. */
  elicit?: (request: Elicitation) => ElicitAnswer;
  /**
   * v2 over stdio: where the client asks `server/discover`. The SDK as shipped asks a sibling process it
   * spawns from the same command and ends at once ('sibling', the default); 'in-place' asks the session's
   * own process first, as the SDK does on every other transport: one server process instead of two, for
   * tests that are not about that probe.
   */
  probe?: 'sibling' | 'in-place';
  /** Declares the MCP Apps extension, as a host that renders the server's ui:// views does. */
  apps?: boolean;
}

const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/**
 * The v2 SDK's stdio transport under a class of its own: the SDK spawns its probe sibling only for its own
 * class (it re-creates the transport from the parameters it kept), and negotiates on any other in place.
 */
export class StdioV2InPlace extends StdioV2 {}

const headers = (via: { token?: string }): Record<string, string> => (via.token ? { authorization: `Bearer ${via.token}` } : {});
/** Records what the transport delivers, then hands it on to the client as before. */
function tap(transport: { onmessage?: ((message: any, extra?: any) => void) | undefined }): any[] {
  const received: any[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    received.push(message);
    deliver?.call(transport, message, extra);
  };
  return received;
}

const drain = (stream: NodeJS.ReadableStream | null | undefined): void => void stream?.on('data', () => undefined);

async function connectV2(via: Via, options: ConnectOptions, record: Elicitation[], errors: Error[]): Promise<Connected> {
  const client = new ClientV2(
    { name: 'e2e-v2', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { ...(options.elicit ? { elicitation: { form: {} } } : {}), ...(options.apps ? APPS : {}) },
      jsonSchemaValidator: compiledOnceV2,
    },
  );
  client.onerror = (err) => errors.push(err);
  const elicit = options.elicit;
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as unknown as Elicitation;
      record.push(params);
      return elicit(params);
    });
  }
  const Stdio = options.probe === 'in-place' ? StdioV2InPlace : StdioV2;
  const transport =
    'linked' in via
      ? (via.linked.transport as unknown as StdioV2)
      : 'stdio' in via
        ? new Stdio({ ...via.stdio, stderr: 'pipe' })
        : new HttpV2(new URL(via.http), { requestInit: { headers: headers(via) } });
  if (transport instanceof StdioV2) drain(transport.stderr as NodeJS.ReadableStream | null);
  await client.connect(transport);
  const received = tap(transport);
  const protocolVersion = client.getNegotiatedProtocolVersion();
  return {
    sdk: 'v2',
    client: client as unknown as McpClient,
    protocolVersion,
    elicitations: record,
    errors,
    received,
    close: closing(client, via),
  };
}

async function connectV1(via: Via, options: ConnectOptions, record: Elicitation[], errors: Error[]): Promise<Connected> {
  const client = new ClientV1(
    { name: 'e2e-v1', version: '1.0.0' },
    { capabilities: { ...(options.elicit ? { elicitation: {} } : {}), ...(options.apps ? APPS : {}) }, jsonSchemaValidator: compiledOnce },
  );
  client.onerror = (err) => errors.push(err);
  const elicit = options.elicit;
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as unknown as Elicitation;
      record.push(params);
      return elicit(params);
    });
  }
  let negotiated: string | undefined;
  const transport =
    'linked' in via
      ? (via.linked.transport as unknown as StdioV1)
      : 'stdio' in via
        ? new StdioV1({ ...via.stdio, stderr: 'pipe' })
        : new HttpV1(new URL(via.http), { requestInit: { headers: headers(via) } });
  if (transport instanceof StdioV1) drain(transport.stderr as NodeJS.ReadableStream | null);
  // The v1 client hands the negotiated version to transports that take it; stdio has no such hook, so add one.
  if (!(transport instanceof HttpV1)) Object.assign(transport, { setProtocolVersion: (v: string) => void (negotiated = v) });
  await client.connect(transport);
  const received = tap(transport);
  const protocolVersion = transport instanceof HttpV1 ? transport.protocolVersion : negotiated;
  return {
    sdk: 'v1',
    client: client as unknown as McpClient,
    protocolVersion,
    elicitations: record,
    errors,
    received,
    close: closing(client, via),
  };
}

/** Closes the client, then a server in the worker that it was linked to. */
const closing = (client: { close(): Promise<void> }, via: Via) => async (): Promise<void> => {
  await client.close();
  if ('linked' in via) await via.linked.close();
};

export function connectClient(sdk: Sdk, via: Via, options: ConnectOptions = {}): Promise<Connected> {
  return (sdk === 'v2' ? connectV2 : connectV1)(via, options, [], []);
}

/** The text of a tool result's first block. */
export const textOf = (result: ToolResult): string => result.content.map((c) => c.text ?? '').join('\n');
