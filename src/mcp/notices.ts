// Hands the server's user-facing notices to one connected client as notifications/message (the SDK drops
// those below the level the client chose with logging/setLevel). An instance that answers a single HTTP
// request has no one to tell later, so it does not listen.
import type { McpServer } from '@modelcontextprotocol/server';
import type { NoticeBoard } from '../notices.js';
import type { ServingUnit } from './serving-unit.js';

export const NOTICE_LOGGER = 'invoicing-mcp';

export function forwardNotices(server: McpServer, unit: ServingUnit, notices: NoticeBoard): void {
  if (unit.lifetime === 'request') return;
  const unlisten = notices.listen((notice) => {
    if (!server.isConnected()) return;
    void server.server.sendLoggingMessage({ level: notice.level, logger: NOTICE_LOGGER, data: notice.message }).catch(() => undefined);
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    unlisten();
    previous?.();
  };
}
