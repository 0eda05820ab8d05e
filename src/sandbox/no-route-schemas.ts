// The sandbox checks every body against the spec's rules in its handlers, never with fastify route schemas:
// without compilers of its own, fastify would build Ajv and fast-json-stringify for each app (about 35 ms
// of CPU at every start). A route that declares a schema fails when the app starts.
import type { FastifyServerOptions } from 'fastify';

const unused = (): never => {
  throw new Error('the sandbox declares no fastify route schemas: validate in the handler');
};

export const SANDBOX_SCHEMA_CONTROLLER: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator: () => unused, buildSerializer: () => unused },
};
