// The admin interface answers only on loopback and only with the admin token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, FieldErrorList } from '../api-error.js';
import { sameSecret } from '../secrets.js';
import type { World } from '../world.js';

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

export type AdminHandler = (request: FastifyRequest) => { status: number; body: unknown } | Promise<{ status: number; body: unknown }>;

export function adminRoute(adminToken: string, handler: AdminHandler) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let status: number;
    let body: unknown;
    try {
      if (!isLoopback(request.socket.remoteAddress)) throw new ApiError(404, `No route for ${request.method} ${request.url}.`);
      const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!m || !sameSecret(m[1] as string, adminToken)) {
        throw new ApiError(401, 'The admin interface needs Authorization: Bearer <admin token> (printed when the sandbox starts).');
      }
      ({ status, body } = await handler(request));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      ({ status, body } = { status: err.status, body: err.body() });
    }
    reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
  };
}

export function objectBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    const errors = new FieldErrorList();
    errors.add('body', 'the request body must be a JSON object');
    errors.throwIfAny();
  }
  return body as Record<string, unknown>;
}

export const conflict = (message: string): ApiError => new ApiError(409, message);

/** The business an admin operation names (`business_id`, a number in a body or a string in a query); the main one when absent. */
export function readBusinessId(world: World, source: Record<string, unknown>, errors: FieldErrorList): number {
  const raw = source.business_id ?? 1;
  const id = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : raw;
  if (typeof id !== 'number' || !world.businesses.has(id)) {
    errors.add('business_id', `business_id must be one of: ${[...world.businesses.keys()].join(', ')}`);
    return 1;
  }
  return id;
}
