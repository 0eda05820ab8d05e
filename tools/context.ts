// What a tool handler receives: the service's client and a logger. Tools never see transports or HTTP.
import type { Logger } from 'pino';
import type { ApiClient } from '../src/api/index.js';

export interface ToolContext {
  api: ApiClient;
  logger: Logger;
}
