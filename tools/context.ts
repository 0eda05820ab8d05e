// What a tool handler receives: the service's client and a logger. Tools never see transports or HTTP.
import type { ApiClient } from '../src/api/index.js';
import type { LogSink } from '../src/deferred-logger.js';

export interface ToolContext {
  api: ApiClient;
  logger: LogSink;
}
