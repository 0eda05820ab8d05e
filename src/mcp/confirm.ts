// --confirm-writes: before a create runs, the user confirms a summary. One handler serves both eras: it
// returns an input_required result, which 2026-07-28 clients answer directly and which the SDK's shim
// turns into an elicitation request on 2025-era connections.
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { toolError } from './tool-errors.js';

const CONFIRM_KEY = 'confirm';
const confirmSchema = z.object({ confirm: z.boolean().meta({ title: 'Create it' }) });

/** 'unknown' for a 2025-era HTTP request outside a session: its instance never saw the client's initialize. */
function clientCanAsk(server: McpServer, ctx: ServerContext): 'yes' | 'no' | 'unknown' {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const perRequest = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  const capabilities = perRequest ?? server.server.getClientCapabilities();
  if (capabilities === undefined) return 'unknown';
  return capabilities.elicitation ? 'yes' : 'no';
}

const CANNOT_ASK = {
  no: 'this client cannot ask (it has no elicitation support). Create the record in the service itself, or run the server without --confirm-writes.',
  unknown:
    'it cannot ask over this connection (a 2025-era client over HTTP: the server cannot send it a request). ' +
    'Connect over stdio or with a 2026-07-28 client, create the record in the service itself, or run the server without --confirm-writes.',
};

export type Confirmation = { proceed: true } | { proceed: false; result: CallToolResult | InputRequiredResult };

/** Asks for, or reads, the user's answer to `summary()`. */
export async function confirmWrite(server: McpServer, ctx: ServerContext, summary: () => Promise<string>): Promise<Confirmation> {
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  if (answer.kind === 'missing') {
    const canAsk = clientCanAsk(server, ctx);
    if (canAsk !== 'yes') {
      return {
        proceed: false,
        result: toolError(`Not created: this server asks the user to confirm every create (--confirm-writes), and ${CANNOT_ASK[canAsk]}`),
      };
    }
    const message = await summary();
    return {
      proceed: false,
      result: inputRequired({ inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ message, requestedSchema: confirmSchema }) } }),
    };
  }
  const confirmed = acceptedContent(ctx.mcpReq.inputResponses, CONFIRM_KEY, confirmSchema);
  if (confirmed?.confirm === true) return { proceed: true };
  return { proceed: false, result: toolError('Not created: the user did not confirm. Nothing was saved.') };
}
