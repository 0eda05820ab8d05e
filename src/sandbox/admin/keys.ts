// Admin: key sets, sessions, the plan and the developer account.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FieldErrorList, notFound } from '../api-error.js';
import type { KeySet } from '../keys.js';
import { FixedWindowLimiter } from '../rate-limit.js';
import { ALL_SCOPES } from '../scopes.js';
import type { World } from '../world.js';
import { adminRoute, objectBody, readBusinessId } from './guard.js';

function keySetOf(world: World, request: FastifyRequest): KeySet {
  const keyId = (request.params as { key_id: string }).key_id;
  const set = world.keys.byKeyId(keyId);
  if (!set) throw notFound(`No key with ID ${keyId}.`);
  return set;
}

function readBoolean(body: Record<string, unknown>, field: string): boolean {
  const errors = new FieldErrorList();
  if (typeof body[field] !== 'boolean') errors.add(field, `${field} must be true or false`);
  errors.throwIfAny();
  return body[field] as boolean;
}

/** Key sets: made with a mode and scopes, regenerated, suspended and resumed, revoked. */
function registerKeySets(app: FastifyInstance, world: World, token: string): void {
  app.post(
    '/_sandbox/keys',
    adminRoute(token, (request) => {
      const body = objectBody(request);
      const errors = new FieldErrorList();
      if (body.mode !== 'live' && body.mode !== 'test') errors.add('mode', 'mode must be live or test');
      const scopes = body.scopes ?? [];
      if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !ALL_SCOPES.includes(s))) {
        errors.add('scopes', `scopes must be an array of: ${ALL_SCOPES.join(', ')}`);
      }
      const businessId = readBusinessId(world, body, errors);
      errors.throwIfAny();
      const { set, issued } = world.keys.create(businessId, body.mode as 'live' | 'test', scopes as string[]);
      return { status: 201, body: { ...issued, mode: set.mode, scopes: set.scopes, business_id: businessId } };
    }),
  );
  app.post(
    '/_sandbox/keys/:key_id/regenerate',
    adminRoute(token, (request) => ({ status: 200, body: world.keys.regenerate(keySetOf(world, request)) })),
  );
  for (const [action, suspended] of [
    ['suspend', true],
    ['resume', false],
  ] as const) {
    app.post(
      `/_sandbox/keys/:key_id/${action}`,
      adminRoute(token, (request) => {
        const set = keySetOf(world, request);
        set.suspended = suspended;
        if (suspended) world.keys.endSessions(set);
        return { status: 200, body: { key_id: set.keyId, suspended } };
      }),
    );
  }
  app.delete(
    '/_sandbox/keys/:key_id',
    adminRoute(token, (request) => {
      const set = keySetOf(world, request);
      world.keys.revoke(set);
      return { status: 200, body: { key_id: set.keyId, revoked: true } };
    }),
  );
}

/** The sessions issued, and ending them (all, or one key's). */
function registerSessions(app: FastifyInstance, world: World, token: string): void {
  // Which sessions were issued, to whom and until when: a test can look for their tokens (by hash) in
  // whatever a client of the service passed on, without the sandbox keeping a token itself.
  app.get(
    '/_sandbox/sessions',
    adminRoute(token, () => ({
      status: 200,
      body: {
        data: world.keys.sessions().map(({ tokenSha256, session }) => ({
          key_id: session.keyId,
          business_id: session.keySet.businessId,
          token_sha256: tokenSha256,
          expires_at: new Date(session.expiresMs).toISOString(),
          ended: session.ended,
        })),
      },
    })),
  );
  app.post(
    '/_sandbox/sessions/end',
    adminRoute(token, (request) => {
      const body = objectBody(request);
      if (body.key_id === undefined) return { status: 200, body: { ended: world.keys.endSessions() } };
      const set = typeof body.key_id === 'string' ? world.keys.byKeyId(body.key_id) : undefined;
      if (!set) throw notFound(`No key with ID ${String(body.key_id)}.`);
      return { status: 200, body: { ended: world.keys.endSessions(set) } };
    }),
  );
}

/** The business's plan, the service's rate limit and the developer account. */
function registerAccount(app: FastifyInstance, world: World, token: string): void {
  app.put(
    '/_sandbox/plan',
    adminRoute(token, (request) => {
      const body = objectBody(request);
      const apiAccess = readBoolean(body, 'api_access');
      const errors = new FieldErrorList();
      const businessId = readBusinessId(world, body, errors);
      errors.throwIfAny();
      world.business(businessId).apiAccess = apiAccess;
      return { status: 200, body: { business_id: businessId, api_access: apiAccess } };
    }),
  );
  app.put(
    '/_sandbox/rate-limit',
    adminRoute(token, (request) => {
      const body = objectBody(request);
      const errors = new FieldErrorList();
      const { limit, window_seconds: windowSeconds } = body;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
        errors.add('limit', 'limit must be a whole number of calls, 1 or more');
      if (typeof windowSeconds !== 'number' || !Number.isInteger(windowSeconds) || windowSeconds < 1 || windowSeconds > 3600) {
        errors.add('window_seconds', 'window_seconds must be a whole number of seconds from 1 to 3600');
      }
      errors.throwIfAny();
      world.callLimiter = new FixedWindowLimiter(limit as number, (windowSeconds as number) * 1000);
      return { status: 200, body: { limit, window_seconds: windowSeconds } };
    }),
  );
  app.put(
    '/_sandbox/developer',
    adminRoute(token, (request) => {
      world.developerSuspended = readBoolean(objectBody(request), 'suspended');
      return { status: 200, body: { suspended: world.developerSuspended } };
    }),
  );
}

export function registerKeyAdmin(app: FastifyInstance, world: World, token: string): void {
  registerKeySets(app, world, token);
  registerSessions(app, world, token);
  registerAccount(app, world, token);
}
