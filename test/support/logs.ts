// Captures everything a logger writes during a test file, and scans it for credentials.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log/logger.js';

export interface LogCapture {
  logger: Logger;
  /** Everything written so far. */
  text(): string;
  /** Parsed JSON lines. */
  lines(): Array<Record<string, unknown>>;
  /** Logs a caught error (so the scan covers error objects too) and hands it back. */
  caught(err: unknown): unknown;
}

export function captureLogs(level = 'trace'): LogCapture {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level, destination });
  return {
    logger,
    caught: (err) => {
      logger.error({ err }, 'caught in test');
      return err;
    },
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** The shapes of the service's and the sandbox's own credentials: never right anywhere we write. */
export const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /svc_(?:live|test)_[A-Za-z0-9_-]{8,}/,
  /svcat_[A-Za-z0-9_-]{8,}/,
  /whsec_[A-Za-z0-9_-]{8,}/,
  /sbx_admin_[A-Za-z0-9_-]{8,}/,
];

// In a log, any credential sent in a header is one too many; a response may rightly carry its own tokens.
const LEAK_PATTERNS: readonly RegExp[] = [
  ...CREDENTIAL_SHAPES,
  /\b(?:Bearer|Basic)\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/i,
  /"authorization"\s*:\s*"(?!\[redacted\])/i,
];

/** Every credential found in `text`: the literal `secrets` given, and anything shaped like one. */
export function findLeaks(text: string, secrets: readonly string[] = [], patterns: readonly RegExp[] = LEAK_PATTERNS): string[] {
  const found: string[] = [];
  for (const s of secrets) if (s && text.includes(s)) found.push(`literal ${s.slice(0, 12)}…`);
  for (const re of patterns) {
    const m = re.exec(text);
    if (m) found.push(`${re.source}: …${text.slice(Math.max(0, m.index - 40), m.index + 20)}…`);
  }
  return found;
}
