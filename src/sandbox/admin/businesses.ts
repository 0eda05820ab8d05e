// Admin: more businesses. Each new one has sample books of its own (from the sandbox's seed and its id)
// and a live and a test key with every scope, as the sandbox's first business has on start.
import type { FastifyInstance } from 'fastify';
import { FieldErrorList } from '../api-error.js';
import { ALL_SCOPES } from '../scopes.js';
import type { Business, World } from '../world.js';
import { adminRoute, objectBody } from './guard.js';

const NAME_MAX = 200;

function businessView(business: Business): Record<string, unknown> {
  const { id, name, currency, timeZone } = business.profile;
  return { id, name, currency, time_zone: timeZone, api_access: business.apiAccess };
}

function readName(body: Record<string, unknown>): string | undefined {
  const errors = new FieldErrorList();
  const name = body.name;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > NAME_MAX)) {
    errors.add('name', `name must be a non-empty string of at most ${NAME_MAX} characters`);
  }
  errors.throwIfAny();
  return typeof name === 'string' ? name.trim() : undefined;
}

export function registerBusinessesAdmin(app: FastifyInstance, world: World, token: string): void {
  app.get(
    '/_sandbox/businesses',
    adminRoute(token, () => ({ status: 200, body: { data: [...world.businesses.values()].map(businessView) } })),
  );
  app.post(
    '/_sandbox/businesses',
    adminRoute(token, (request) => {
      const business = world.addBusiness(readName(objectBody(request)));
      const keys = {
        test: world.keys.create(business.profile.id, 'test', ALL_SCOPES).issued,
        live: world.keys.create(business.profile.id, 'live', ALL_SCOPES).issued,
      };
      return { status: 201, body: { ...businessView(business), keys } };
    }),
  );
}
