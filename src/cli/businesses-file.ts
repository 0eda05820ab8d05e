// `--businesses FILE` / INVOICING_MCP_BUSINESSES: the businesses one server serves, each with its own key.
// Every entry is checked at start with the same rules as SVC_*; a wrong one is refused naming it and its field.
import { readFileSync } from 'node:fs';
import { ConfigError, loadServiceConfig, type ServiceConfig, type ServiceEnv } from './service-env.js';

export interface BusinessEntry {
  /** The short name a person uses ("Harbourside"), unique ignoring case. */
  readonly name: string;
  readonly config: ServiceConfig;
}

const SETTING = '--businesses';
const FIELDS = ['name', 'base_url', 'key_id', 'secret', 'secret_env', 'webhook_secret', 'webhook_secret_env'];
const NAME_MAX = 60;
/** The SVC_* setting each field stands for, so the environment's checks and words serve both. */
const AS_ENV: Record<string, string> = {
  base_url: 'SVC_BASE_URL',
  key_id: 'SVC_KEY_ID',
  secret: 'SVC_SECRET',
  webhook_secret: 'SVC_WEBHOOK_SECRET',
};

const refused = (where: string, message: string): ConfigError => new ConfigError(SETTING, `${SETTING}: ${where}: ${message}`);

/** The list's text: INVOICING_MCP_BUSINESSES may hold the JSON itself (an MCP Bundle setting) or a file's path. */
function listText(setting: string): { text: string; source: string } {
  if (setting.trimStart().startsWith('[')) return { text: setting, source: 'INVOICING_MCP_BUSINESSES' };
  try {
    return { text: readFileSync(setting, 'utf8'), source: setting };
  } catch (err) {
    throw new ConfigError(
      SETTING,
      `${SETTING}: cannot read ${setting} (${(err as NodeJS.ErrnoException).code ?? String(err)}): give the path of a JSON file`,
    );
  }
}

function entryName(raw: Record<string, unknown>, where: string): string {
  const name = raw.name;
  if (typeof name !== 'string' || name.trim() === '' || name.trim().length > NAME_MAX)
    throw refused(where, `field name must be the business's short name, 1 to ${NAME_MAX} characters`);
  if (/\p{Cc}|["\\]/u.test(name)) throw refused(where, 'field name must be plain text: no control characters, quotes or backslashes');
  if (name.trim().toLowerCase() === 'all')
    throw refused(where, 'field name "all" is kept for asking every business at once: choose another');
  if (/^\d+$/.test(name.trim())) throw refused(where, 'field name must not be a number (a number names a business by its id)');
  return name.trim();
}

/** A secret given in the entry (`field`) or in the environment variable it names (`field_env`); undefined when neither. */
function entrySecret(raw: Record<string, unknown>, where: string, env: ServiceEnv, field: string): string | undefined {
  const fromEnv = `${field}_env`;
  if (raw[field] !== undefined && raw[fromEnv] !== undefined) throw refused(where, `give field ${field} or field ${fromEnv}, not both`);
  const name = raw[fromEnv];
  if (name === undefined) return typeof raw[field] === 'string' ? raw[field] : undefined;
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw refused(where, `field ${fromEnv} must name an environment variable (letters, digits, _)`);
  const value = env[name];
  if (value === undefined || value.trim() === '') throw refused(where, `field ${fromEnv} names ${name}, which is not set`);
  return value;
}

function readEntry(raw: unknown, index: number, env: ServiceEnv): BusinessEntry {
  let where = `entry ${index + 1}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw refused(where, 'must be an object { "name", "base_url", "key_id", "secret" }');
  const entry = raw as Record<string, unknown>;
  const stray = Object.keys(entry).find((key) => !FIELDS.includes(key));
  if (stray) throw refused(where, `unknown field ${JSON.stringify(stray)}: an entry takes ${FIELDS.join(', ')}`);
  const name = entryName(entry, where);
  where = `entry ${index + 1} (${JSON.stringify(name)})`;
  const secret = entrySecret(entry, where, env, 'secret');
  const webhookSecret = entrySecret(entry, where, env, 'webhook_secret');
  try {
    const config = loadServiceConfig({
      SVC_BASE_URL: typeof entry.base_url === 'string' ? entry.base_url : undefined,
      SVC_KEY_ID: typeof entry.key_id === 'string' ? entry.key_id : undefined,
      SVC_SECRET: secret,
      SVC_WEBHOOK_SECRET: webhookSecret,
      SVC_POLL_SECONDS: env.SVC_POLL_SECONDS,
      SVC_POLL_MS: env.SVC_POLL_MS,
    });
    return { name, config };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const field = Object.keys(AS_ENV).find((f) => AS_ENV[f] === err.setting) ?? err.setting;
    const fromEnv = entry[`${field}_env`];
    const fieldName = fromEnv === undefined ? field : `${field} (from ${String(fromEnv)})`;
    let message = err.message;
    for (const [f, envName] of Object.entries(AS_ENV)) message = message.replaceAll(envName, f);
    throw refused(where, `field ${fieldName}: ${message.replace(/ Or set none of .*$/, '')}`);
  }
}

/** The businesses of `setting` (a file's path, or the JSON list itself), all checked; a ConfigError names the first wrong one. */
export function loadBusinesses(setting: string, env: ServiceEnv): BusinessEntry[] {
  const { text, source } = listText(setting);
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(SETTING, `${SETTING}: ${source} is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!Array.isArray(list) || list.length === 0)
    throw new ConfigError(
      SETTING,
      `${SETTING}: ${source} must hold a JSON array of businesses, each { "name", "base_url", "key_id", "secret" }`,
    );
  const entries = list.map((raw, i) => readEntry(raw, i, env));
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const first = seen.get(entry.name.toLowerCase());
    if (first !== undefined)
      throw refused(
        `entry ${i + 1} (${JSON.stringify(entry.name)})`,
        `field name is already entry ${first + 1}'s: names must differ, ignoring case`,
      );
    seen.set(entry.name.toLowerCase(), i);
  });
  return entries;
}
