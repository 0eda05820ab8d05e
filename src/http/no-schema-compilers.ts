// Our routes declare no fastify schemas: bodies are checked with zod (the sandbox against the spec's
// rules). Fastify builds Ajv and fast-json-stringify compilers for every app unless it is given its own,
// about 35 ms of CPU at each start of a process that serves HTTP; these take their place, and a route
// that ever declares a schema fails when it is added, not silently unchecked.
import type { FastifyServerOptions } from 'fastify';

function refuse(): never {
  throw new Error('fastify route schemas are not used here: check the input with zod in the handler');
}

export const NO_SCHEMA_COMPILERS: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator: () => refuse, buildSerializer: () => refuse },
};
