// What a tool handler receives: the service's client, the books mirror (null when it is off), a logger and,
// per call, a progress hook. Tools never see transports or HTTP.
import type { ApiClient } from '../src/api/index.js';
import type { LogSink } from '../src/log/deferred-logger.js';
import type { Books, FreshProgress } from '../src/store/types.js';

export interface ToolContext {
  api: ApiClient;
  /** The local copy of the books that answer tools read; null or absent with `--mirror off`. */
  books?: Books | null;
  logger: LogSink;
  /** Set for one call when the client sent a progress token: reports how a long wait is going. */
  progress?: (update: FreshProgress) => void;
}
