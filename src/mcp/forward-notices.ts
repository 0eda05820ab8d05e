// Hands the server's user-facing notices to one connected client as notifications/message (the SDK drops
// those below the level the client chose with logging/setLevel). Only connections on the 2025 handshake
// get them: the 2026-07-28 revision deprecates server logging (SEP-2577) and has no channel for a message
// outside a request, so its clients read the same lines on stderr. An instance that answers a single HTTP
// request has no one to tell later either.
import type { McpServer } from '@modelcontextprotocol/server';
import type { NoticeBoard } from '../log/notices.js';
import type { ServingUnit } from './serving-unit.js';

export const NOTICE_LOGGER = 'invoicing-mcp';

export function forwardNotices(server: McpServer, unit: ServingUnit, notices: NoticeBoard): void {
  if (unit.lifetime === 'request' || unit.era !== 'legacy') return;
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
