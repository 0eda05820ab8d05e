// What the sandbox knows about one /api call as it is handled: who is calling, in which mode, and what
// went wrong, so every response can carry the service's headers and every call reaches the audit log.
import type { FastifyRequest } from 'fastify';
import { ApiError, forbidden, unauthorized } from './api-error.js';
import type { Mode } from './books.js';
import type { Books } from './collection.js';
import type { KeySet, Session } from './keys.js';
import { formatTimestamp } from './time.js';
import type { ViewContext } from './views.js';
import type { Business, World } from './world.js';

export interface CallState {
  startedAt: number;
  mode: Mode | null;
  keyId: string | null;
  sessionExpiresMs: number | null;
  /** The zone of the session's business, in which X-Service-Session-Expires is written. */
  timeZone: string | null;
  error: string | null;
  rate: { limit: number; remaining: number } | null;
}

export interface Caller {
  session: Session;
  keySet: KeySet;
  business: Business;
  mode: Mode;
  books: Books;
  view: ViewContext;
}

declare module 'fastify' {
  interface FastifyRequest {
    call: CallState | null;
  }
}

export function modeOfCredential(text: string | undefined): Mode | null {
  if (!text) return null;
  if (/^svck?_live_/.test(text)) return 'live';
  if (/^svck?_test_/.test(text)) return 'test';
  return null;
}

export function callState(request: FastifyRequest): CallState {
  request.call ??= {
    startedAt: performance.now(),
    mode: null,
    keyId: null,
    sessionExpiresMs: null,
    timeZone: null,
    error: null,
    rate: null,
  };
  return request.call;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const SIGN_IN_HINT = 'Sign in with POST /api/v1/auth/token and send its access_token as the bearer token.';

function sessionOf(world: World, request: FastifyRequest, state: CallState): Session {
  const keyId = header(request, 'x-service-key');
  state.keyId = keyId ?? null;
  state.mode = modeOfCredential(keyId);
  const auth = header(request, 'authorization');
  const match = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  if (!match) throw unauthorized(`Missing session token. ${SIGN_IN_HINT}`);
  const token = match[1] as string;
  if (/^svc_(live|test)_/.test(token)) {
    throw unauthorized(`A key secret cannot be used as a bearer token. ${SIGN_IN_HINT}`);
  }
  const session = world.keys.session(token);
  if (!session) throw unauthorized(`The session token is not valid. ${SIGN_IN_HINT}`);
  state.mode = session.keySet.mode;
  if (session.ended) throw unauthorized(`The session has ended. ${SIGN_IN_HINT}`);
  if (world.clock.now() >= session.expiresMs) throw unauthorized(`The session has expired. ${SIGN_IN_HINT}`);
  if (!keyId) throw unauthorized('Missing X-Service-Key header: send the key ID the session was issued for.');
  if (keyId !== session.keyId) {
    throw unauthorized('X-Service-Key does not match the key the session was issued for.');
  }
  state.sessionExpiresMs = session.expiresMs;
  state.timeZone = world.business(session.keySet.businessId).profile.timeZone;
  return session;
}

/** Checks everything a call with a session must pass: 401, 403, 429, then the scope. */
export function authenticate(world: World, request: FastifyRequest, scope: string | null): Caller {
  const state = callState(request);
  const session = sessionOf(world, request, state);
  const keySet = session.keySet;
  const verdict = world.callLimiter.hit(keySet.setId, world.clock.now());
  state.rate = { limit: verdict.limit, remaining: verdict.remaining };
  if (!verdict.allowed) {
    throw new ApiError(
      429,
      `Too many calls: this key may make ${verdict.limit} calls per window. Retry after ${verdict.retryAfter} seconds.`,
      {},
      { 'retry-after': String(verdict.retryAfter) },
    );
  }
  refuseBlockedKey(world, keySet);
  if (scope !== null && !keySet.scopes.includes(scope)) {
    throw forbidden(`This key lacks the ${scope} scope. An owner or admin of the business can grant it.`, {
      required_scope: scope,
    });
  }
  const business = world.business(keySet.businessId);
  return {
    session,
    keySet,
    business,
    mode: keySet.mode,
    books: keySet.mode === 'live' ? business.live : business.test,
    view: world.viewContext(keySet.businessId, keySet.mode),
  };
}

/** The 403s that no sign-in can cure. */
export function refuseBlockedKey(world: World, keySet: KeySet): void {
  if (keySet.suspended) throw forbidden('The key set is suspended by the business. Signing in again does not help.');
  if (world.developerSuspended) throw forbidden('The developer account is suspended. Signing in again does not help.');
  if (!world.business(keySet.businessId).apiAccess) {
    throw forbidden("The business's plan does not include API access. Signing in again does not help.");
  }
}

export function serviceHeaders(state: CallState, timeZone: string): Record<string, string> {
  const headers: Record<string, string> = {
    'x-service-mode': state.mode ?? 'live',
    'x-service-session-expires': state.sessionExpiresMs === null ? '' : formatTimestamp(state.sessionExpiresMs, state.timeZone ?? timeZone),
  };
  if (state.rate) {
    headers['x-ratelimit-limit'] = String(state.rate.limit);
    headers['x-ratelimit-remaining'] = String(state.rate.remaining);
  }
  return headers;
}
