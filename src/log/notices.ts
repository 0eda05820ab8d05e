// Warnings a user should see (the poll interval widened to fit the rate-limit budget, a webhook delivery
// refused). They are logged to stderr like every other line; a log call marks one with `notice: true`, and
// the logger also hands it here, from where each connected MCP client gets it as notifications/message.
export type NoticeLevel = 'info' | 'warning' | 'error';

export interface Notice {
  level: NoticeLevel;
  /** One line, already scrubbed of credentials by the logger. */
  message: string;
}

export type NoticeListener = (notice: Notice) => void;

export interface NoticeBoard {
  publish(notice: Notice): void;
  /** Returns the function that stops listening. */
  listen(listener: NoticeListener): () => void;
}

export function createNoticeBoard(): NoticeBoard {
  const listeners = new Set<NoticeListener>();
  return {
    publish(notice) {
      for (const listener of listeners) listener(notice);
    },
    listen(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** The notice level of a pino level number (30 info, 40 warn, 50 error and above). */
export function noticeLevel(pinoLevel: number): NoticeLevel {
  if (pinoLevel >= 50) return 'error';
  return pinoLevel >= 40 ? 'warning' : 'info';
}
