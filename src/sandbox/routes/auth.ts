// Sign-in (JSON body or HTTP Basic), sign-out and ping.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, FieldErrorList, unauthorized } from '../api-error.js';
import { type Answer, openRoute, sessionRoute } from '../api-route.js';
import { callState, modeOfCredential, refuseBlockedKey } from '../call.js';
import { SESSION_SECONDS } from '../keys.js';
import { formatTimestamp } from '../time.js';
import type { World } from '../world.js';

interface Credentials {
  keyId: string;
  secret: string;
}

function basicCredentials(request: FastifyRequest): Credentials | null {
  const auth = request.headers.authorization;
  const m = auth ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth) : null;
  if (!m) return null;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { keyId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function bodyCredentials(body: unknown): Credentials {
  const errors = new FieldErrorList();
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  for (const field of ['key_id', 'secret'] as const) {
    if (b[field] === undefined || b[field] === null || b[field] === '') errors.add(field, `${field} is required`);
    else if (typeof b[field] !== 'string') errors.add(field, `${field} must be a string`);
  }
  errors.throwIfAny();
  return { keyId: b.key_id as string, secret: b.secret as string };
}

function signIn(world: World, request: FastifyRequest): Answer {
  const state = callState(request);
  const ip = request.ip;
  const basic = basicCredentials(request);
  const claimedKeyId = basic?.keyId ?? (request.body as { key_id?: unknown } | undefined)?.key_id;
  const keyIdText = typeof claimedKeyId === 'string' ? claimedKeyId : null;
  state.keyId = keyIdText;
  state.mode = modeOfCredential(keyIdText ?? undefined);
  const log = (status: number, error: string | null): void =>
    world.audit.recordSignIn({ at: world.clock.now(), key_id: keyIdText, ip, status, error });
  try {
    const verdict = world.signInLimiter.hit(ip, world.clock.now());
    if (!verdict.allowed) {
      throw new ApiError(
        429,
        `Too many sign-in attempts from this address (${verdict.limit} a minute). Retry after ${verdict.retryAfter} seconds.`,
        {},
        { 'retry-after': String(verdict.retryAfter) },
      );
    }
    const creds = basic ?? bodyCredentials(request.body);
    const keySet = world.keys.verify(creds.keyId, creds.secret);
    if (!keySet) throw unauthorized('Wrong key ID or secret.');
    refuseBlockedKey(world, keySet);
    const { token, session } = world.keys.startSession(keySet, world.clock.now());
    state.sessionExpiresMs = session.expiresMs;
    const business = world.business(keySet.businessId);
    state.timeZone = business.profile.timeZone;
    log(201, null);
    return {
      status: 201,
      body: {
        access_token: token,
        token_type: 'Bearer',
        expires_in: SESSION_SECONDS,
        expires_at: formatTimestamp(session.expiresMs, business.profile.timeZone),
        mode: keySet.mode,
        key_id: keySet.keyId,
        scopes: [...keySet.scopes],
        business: { id: business.profile.id, name: business.profile.name },
      },
    };
  } catch (err) {
    if (err instanceof ApiError) log(err.status, err.message);
    throw err;
  }
}

export function registerAuthRoutes(app: FastifyInstance, world: World): void {
  app.post(
    '/api/v1/auth/token',
    openRoute(world, (request) => signIn(world, request)),
  );
  app.delete(
    '/api/v1/auth/token',
    sessionRoute(world, null, (_request, caller) => {
      caller.session.ended = true;
      return { status: 200, body: { ok: true } };
    }),
  );
  app.get(
    '/api/ping',
    sessionRoute(world, null, (_request, caller) => ({
      status: 200,
      body: {
        ok: true,
        mode: caller.mode,
        business: { id: caller.business.profile.id, name: caller.business.profile.name },
        session_expires_at: formatTimestamp(caller.session.expiresMs, caller.business.profile.timeZone),
      },
    })),
  );
}
