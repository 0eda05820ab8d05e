// Request bodies as JSON, with a bound on nesting: no tool takes arguments more than a few levels deep,
// and a body nested thousands deep would only exhaust the stack of whatever walks it next. Parsed by
// fastify's own parser (which guards against prototype poisoning), then measured without recursion. An empty
// body is no body (a DELETE that names its Content-Type anyway), left for the route to judge.
import type { FastifyInstance } from 'fastify';

export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests objects or arrays deeper than `max`. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (!node || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

class TooDeep extends Error {
  readonly statusCode = 400;
  readonly code = -32600;
  constructor() {
    super(`Invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'TooDeep';
  }
}

/** Replaces the app's JSON parser with one that refuses bodies nested deeper than MAX_JSON_DEPTH (400). */
export function boundedJsonParser(app: FastifyInstance, report: (err: Error) => void): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parse(request, body as string, (err, value) => {
      if (err) return done(err, undefined);
      if (!nestedDeeperThan(value, MAX_JSON_DEPTH)) return done(null, value);
      const refused = new TooDeep();
      report(refused);
      done(refused, undefined);
    });
  });
}
