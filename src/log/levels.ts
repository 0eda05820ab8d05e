// The log levels `--log-level` takes: pino's own names, and the MCP (syslog) names mapped onto them, so
// `--log-level warning` means what a user of MCP clients expects instead of stopping the server.
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

const MCP_NAMES: Readonly<Record<string, LogLevel>> = {
  warning: 'warn',
  notice: 'info',
  critical: 'fatal',
  alert: 'fatal',
  emergency: 'fatal',
};

/** pino's name for `name` (case-insensitive), or null when it is no log level. */
export function toLogLevel(name: string): LogLevel | null {
  const lower = name.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(lower)) return lower as LogLevel;
  return MCP_NAMES[lower] ?? null;
}

/** One line naming the valid levels, for a value that is not one. */
export function logLevelProblem(setting: string, given: string): string {
  return `${setting} must be one of ${LOG_LEVELS.join(', ')} (MCP's ${Object.keys(MCP_NAMES).join(', ')} are also understood), not "${given}"`;
}
