// The refusals and faults of the Invoicing Service as a small hierarchy of typed errors, made by one
// factory from status + body. Every message keeps the service's own words (scrubbed of credentials) and
// ends with what to do next; no message ever carries a secret, a token or an Authorization value.

import { counted } from '../core/counted.js';
import { redactText } from '../log/redact.js';

export type FieldErrors = Record<string, string[]>;

export interface ErrorDetails {
  /** HTTP status of the answer; null when there was no answer (network fault, queue bound). */
  status?: number | null;
  /** The service's `message`, scrubbed; null when it gave none. */
  serviceMessage?: string | null;
  method?: string;
  path?: string;
  /** How many requests were made for this call, retries included. */
  attempts?: number;
  /** The Idempotency-Key of a create, so a caller can retry it safely. */
  idempotencyKey?: string;
  cause?: unknown;
}

export abstract class ApiError extends Error {
  abstract readonly code: string;
  readonly status: number | null;
  readonly serviceMessage: string | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly attempts: number;
  readonly idempotencyKey: string | null;

  constructor(message: string, details: ErrorDetails = {}) {
    super(redactText(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status ?? null;
    this.serviceMessage = details.serviceMessage ?? null;
    this.method = details.method ?? null;
    this.path = details.path ?? null;
    this.attempts = details.attempts ?? 1;
    this.idempotencyKey = details.idempotencyKey ?? null;
  }
}

/** 401: the key is wrong, regenerated or revoked, or the session is not accepted. */
export class Unauthorized extends ApiError {
  readonly code = 'unauthorized';
}

/** 403 that no sign-in cures: key set or developer account suspended, plan without the API. */
export class Forbidden extends ApiError {
  readonly code: string = 'forbidden';
}

/** 403 for a scope the key lacks. */
export class MissingScope extends Forbidden {
  override readonly code = 'missing_scope';
  constructor(
    message: string,
    readonly requiredScope: string,
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** 404: no such record in this business. */
export class NotFound extends ApiError {
  readonly code = 'not_found';
}

/** 422 (or another 4xx): the request as sent is refused; `fieldErrors` keyed by field path. */
export class Invalid extends ApiError {
  readonly code = 'invalid';
  constructor(
    message: string,
    readonly fieldErrors: FieldErrors,
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** 429, or a call that would wait in the queue longer than its bound. `retryAfter` in seconds. */
export class RateLimited extends ApiError {
  readonly code = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfter: number,
    details: ErrorDetails = {},
    /** Whose calls spent the window, as this process saw them (a sentence), when the pacer could tell. */
    readonly whose: string | null = null,
  ) {
    super(message, details);
  }
}

/** 5xx after the retries, or an answer this client cannot read. */
export class ServiceFault extends ApiError {
  readonly code: string = 'service_fault';
}

/** An answer whose body does not match the documented shape (or is not JSON). */
export class UnexpectedResponse extends ServiceFault {
  override readonly code = 'unexpected_response';
}

/** No answer: connection refused or reset, DNS, TLS, timeout; after the retries. */
export class NetworkFault extends ApiError {
  readonly code = 'network_fault';
}

// ---- the factory ----

export type CallPhase = 'sign-in' | 'call' | 'replay';

export interface ResponseFacts {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface CallFacts {
  method: string;
  path: string;
  phase?: CallPhase;
  attempts?: number;
  idempotencyKey?: string;
  now?: number;
}

const MAX_SERVICE_MESSAGE = 500;

function serviceMessageOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const m = (body as Record<string, unknown>).message ?? (body as Record<string, unknown>).error;
  if (typeof m !== 'string' || m.trim() === '') return null;
  const text = redactText(m.trim());
  return text.length > MAX_SERVICE_MESSAGE ? `${text.slice(0, MAX_SERVICE_MESSAGE)}…` : text;
}

function header(headers: ResponseFacts['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Seconds from a Retry-After header (delta-seconds or HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.max(0, Math.ceil(Number(text)));
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The `errors` object of a 422, flattened to `field.path -> messages`; tolerant of odd shapes. */
export function fieldErrorsOf(body: unknown): FieldErrors {
  const out: FieldErrors = {};
  const errors = body && typeof body === 'object' ? (body as Record<string, unknown>).errors : undefined;
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') (out[path || 'request'] ??= []).push(redactText(value));
    else if (Array.isArray(value)) for (const v of value) visit(v, path);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, path ? `${path}.${k}` : k);
    }
  };
  visit(errors, '');
  return out;
}

function said(status: number, serviceMessage: string | null): string {
  return serviceMessage ? `${status}: ${serviceMessage}` : `HTTP ${status}`;
}

function describeFieldErrors(fieldErrors: FieldErrors): string {
  const parts = Object.entries(fieldErrors).map(([field, msgs]) => `${field}: ${msgs.join('; ')}`);
  return parts.length === 0 ? '' : ` Fix: ${parts.join(' | ')}.`;
}

function scopeOf(body: unknown): string | null {
  const s = body && typeof body === 'object' ? (body as Record<string, unknown>).required_scope : undefined;
  return typeof s === 'string' && s !== '' ? s : null;
}

/** The typed error for a refusal or fault the service answered with. */
export function errorFromResponse(res: ResponseFacts, call: CallFacts): ApiError {
  const { status, body } = res;
  const serviceMessage = serviceMessageOf(body);
  const details: ErrorDetails = {
    status,
    serviceMessage,
    method: call.method,
    path: call.path,
    attempts: call.attempts ?? 1,
    ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
  };
  const where = `${call.method} ${call.path}`;
  const requiredScope = status === 401 || status === 403 ? scopeOf(body) : null;
  if (requiredScope) {
    return new MissingScope(
      `This key lacks the ${requiredScope} scope (${said(status, serviceMessage)}). An owner or admin of the business can grant it to the key in the service's API settings.`,
      requiredScope,
      details,
    );
  }
  if (status === 401) return unauthorized(status, serviceMessage, call.phase ?? 'call', details);
  if (status === 403) {
    return new Forbidden(
      `The service refused ${call.phase === 'sign-in' ? 'the sign-in' : where} (${said(status, serviceMessage)}). Signing in again does not help: an owner or admin of the business must resume the key set or the developer account, or include API access in the plan.`,
      details,
    );
  }
  if (status === 404) {
    return new NotFound(
      `Not found: ${where} (${said(status, serviceMessage)}). Check the ID: it must be a record of this business; list the records to find it.`,
      details,
    );
  }
  if (status === 429) {
    const retryAfter = Math.max(1, parseRetryAfter(header(res.headers, 'retry-after'), call.now) ?? 1);
    return new RateLimited(
      `The service's rate limit is reached (${said(status, serviceMessage)}). Retry after ${counted(retryAfter, 'second')}.`,
      retryAfter,
      details,
    );
  }
  if (status >= 400 && status < 500) {
    const fieldErrors = fieldErrorsOf(body);
    return new Invalid(
      `The service rejected ${where} (${said(status, serviceMessage)}).${describeFieldErrors(fieldErrors) || ' Correct the request and send it again.'}`,
      fieldErrors,
      details,
    );
  }
  if (status >= 500) {
    return new ServiceFault(
      `The service failed on ${where} (${said(status, serviceMessage)}) after ${details.attempts} attempt(s). This is a fault on the service's side: try again in a minute.${idempotencyHint(call.idempotencyKey)}`,
      details,
    );
  }
  return new UnexpectedResponse(`The service answered ${where} with an unexpected HTTP ${status}.`, details);
}

function unauthorized(status: number, serviceMessage: string | null, phase: CallPhase, details: ErrorDetails): Unauthorized {
  const fix =
    'The key was regenerated or revoked, or SVC_KEY_ID and SVC_SECRET do not belong together: put a current key ID and secret from the developer console into SVC_KEY_ID and SVC_SECRET, then restart.';
  const what =
    phase === 'sign-in'
      ? 'Sign-in was refused'
      : phase === 'replay'
        ? 'The service refused the call even with a fresh session'
        : 'The service refused the session';
  return new Unauthorized(`${what} (${said(status, serviceMessage)}). ${fix}`, details);
}

export function idempotencyHint(key: string | undefined): string {
  return key ? ` To be sure it is not created twice, retry with the same idempotency key (${key}).` : '';
}
