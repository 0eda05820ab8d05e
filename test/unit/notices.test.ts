// Lines marked `notice: true` go to the notice board as well as to the log, scrubbed and with the MCP
// level of their pino level; other lines, and lines below the logger's level, do not.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createNoticeBoard, type Notice } from '../../src/log/notices.js';

function setup(level = 'info') {
  const notices = createNoticeBoard();
  const seen: Notice[] = [];
  notices.listen((n) => seen.push(n));
  const logger = createLogger({ level, notices, destination: new Writable({ write: (_c, _e, done) => done() }) });
  return { logger, seen };
}

describe('notices', () => {
  it('a marked warning is published with level warning, scrubbed', () => {
    const { logger, seen } = setup();
    logger.child({ component: 'poller' }).warn({ notice: true, limit: 5 }, 'SVC_POLL_SECONDS=1 is widened; key svc_live_abcdefghijklmnop');
    logger.error({ notice: true }, 'refused');
    expect(seen).toHaveLength(2);
    expect(seen[0]?.level).toBe('warning');
    expect(seen[0]?.message).toMatch(/^SVC_POLL_SECONDS=1 is widened/);
    expect(seen[0]?.message).not.toContain('svc_live_abcdefghijklmnop');
    expect(seen[1]).toEqual({ level: 'error', message: 'refused' });
  });

  it('unmarked lines and lines below the level are not published', () => {
    const { logger, seen } = setup('error');
    logger.warn({ notice: true }, 'below the level');
    logger.error({ status: 500 }, 'not a notice');
    expect(seen).toEqual([]);
  });

  it('an unknown log level is refused at once, naming the valid ones', () => {
    expect(() => createLogger({ level: 'verbose' })).toThrow(/trace, debug, info, warn, error, fatal, silent/);
    expect(createLogger({ level: 'warning', destination: new Writable({ write: (_c, _e, done) => done() }) }).level).toBe('warn');
  });
});
