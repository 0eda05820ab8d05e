// The two parts of undici this project uses: its Agent and its request API. undici's index also loads
// fetch, WebSocket, cookies, the mock agents and the cache interceptors: about 100 ms of CPU at every
// start of a process that calls the service, for nothing it uses. undici has no `exports` map, so its
// files are reachable; test/unit/undici-core.test.ts holds these two paths to the installed version.
import { createRequire } from 'node:module';
import type { Dispatcher, Agent as UndiciAgent, request as undiciRequest } from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;

const api = require('undici/lib/api/index.js') as { request: typeof undiciRequest };

/** One request on `dispatcher` (any undici dispatcher: ours, or one a caller gave). */
export function dispatch(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return (api.request as unknown as (this: Dispatcher, o: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>).call(
    dispatcher,
    options,
  );
}
