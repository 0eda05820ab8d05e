// The one error boundary: a typed refusal becomes a tool error whose text says what happened and what
// to do next. Nothing here is an instruction to the model; it is the service's answer, explained.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiError, Invalid, MissingScope, NotFound, RateLimited } from '../api/errors.js';
import { counted } from '../core/counted.js';
import { RefusedQuestion } from '../core/refused.js';
import { DatabaseUnreachable } from '../core/unreachable.js';
import { redactText } from '../log/redact.js';

export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function invalidText(err: Invalid): string {
  const fields = Object.entries(err.fieldErrors);
  if (fields.length === 0) return err.message;
  const lines = fields.map(([field, messages]) => `- ${field}: ${messages.join('; ')}`);
  const said = err.serviceMessage ? ` (${err.serviceMessage})` : '';
  return [`The service refused the request${said}. Fix these fields and call again:`, ...lines].join('\n');
}

/** `noun` names the record a get tool was after, so "not found" can name it. */
export function errorResult(err: unknown, toolName: string, args: Record<string, unknown>): CallToolResult {
  if (err instanceof MissingScope) {
    return toolError(
      `Refused: this key lacks the ${err.requiredScope} scope, which ${toolName} needs. ` +
        `An owner or admin of the business can grant it to the key in the service's API settings; signing in again will not help.`,
    );
  }
  if (err instanceof Invalid) return toolError(invalidText(err));
  if (err instanceof DatabaseUnreachable) {
    return toolError(
      `The books are briefly unreachable: their database did not answer ${toolName}. Retry in ${err.retryAfter} seconds or so; ` +
        'a create retried with the same idempotency_key is never made twice.',
    );
  }
  if (err instanceof RateLimited) {
    const whose = err.whose ? ` ${err.whose}` : '';
    return toolError(`The service's rate limit is reached.${whose} Retry after ${counted(err.retryAfter, 'second')}; nothing was lost.`);
  }
  if (err instanceof NotFound) {
    const noun = toolName.replace(/^get_/, '').replace(/_/g, ' ');
    const id = args.id ?? args.customer_id;
    return toolError(
      id !== undefined
        ? `Not found: no ${noun} with id ${String(id)} in this business. Use the matching list tool to find the right id.`
        : err.message,
    );
  }
  if (err instanceof ApiError || err instanceof RefusedQuestion) return toolError(err.message);
  const message = err instanceof Error ? err.message : String(err);
  return toolError(`${toolName} failed unexpectedly: ${redactText(message)}`);
}
