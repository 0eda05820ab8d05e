// Where the mirror lives: `--mirror PATH` / INVOICING_MCP_MIRROR, a Postgres URL (postgres://user:pass@host/db),
// `memory`, `off`, or by default one file per
// service and key under the user's cache directory (XDG on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA%
// on Windows). The file name is a digest of the base URL and key ID, so a key of another business, mode or
// service never opens another's file. Pure: reads only what it is given.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type MirrorLocation =
  | { kind: 'off' }
  | { kind: 'memory' }
  | { kind: 'file'; path: string; explicit: boolean }
  | { kind: 'postgres'; url: string };

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
/** Query parameters of a connection string that carry a secret. */
const SECRET_PARAMS = ['password', 'sslpassword'];

/**
 * A Postgres connection string fit to show: its password (and any password parameter) replaced by `***`.
 * One that cannot be read is shown as its scheme alone, since where its secret lies is not known.
 */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of SECRET_PARAMS) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return `${url.split(':')[0]}://***`;
  }
}

export interface LocationInput {
  /** The --mirror flag or INVOICING_MCP_MIRROR, when set. */
  setting: string | null;
  /** On the embedded sandbox the default is memory: its books are new at every start. */
  sandbox: boolean;
  baseUrl: string;
  keyId: string;
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
}

/** The user's cache directory, by the platform's convention. */
export function cacheDirectory(env: Record<string, string | undefined>, platform: NodeJS.Platform, home: string): string {
  if (platform === 'win32') return env.LOCALAPPDATA || join(home, 'AppData', 'Local');
  if (platform === 'darwin') return join(home, 'Library', 'Caches');
  return env.XDG_CACHE_HOME || join(home, '.cache');
}

/** The identity a mirror file belongs to: the service and the key (whose ID carries its mode). */
/** Starts the identity of a file the embedded sandbox's books went into: such a file is rebuilt, not refused. */
export const SANDBOX_IDENTITY = 'sandbox:';

export function mirrorIdentity(baseUrl: string, keyId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}|${keyId}`;
}

export function defaultMirrorPath(input: Omit<LocationInput, 'setting' | 'sandbox'>): string {
  const env = input.env ?? process.env;
  const dir = cacheDirectory(env, input.platform ?? process.platform, input.home ?? homedir());
  const digest = createHash('sha256').update(mirrorIdentity(input.baseUrl, input.keyId)).digest('hex').slice(0, 20);
  return join(dir, 'invoicing-mcp', `mirror-${digest}.db`);
}

export function resolveMirrorLocation(input: LocationInput): MirrorLocation {
  const setting = input.setting?.trim() ?? '';
  if (setting === 'off') return { kind: 'off' };
  if (setting === 'memory') return { kind: 'memory' };
  if (POSTGRES_URL.test(setting)) return { kind: 'postgres', url: setting };
  if (setting !== '') return { kind: 'file', path: setting, explicit: true };
  if (input.sandbox) return { kind: 'memory' };
  return { kind: 'file', path: defaultMirrorPath(input), explicit: false };
}
