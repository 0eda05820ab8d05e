// Scrubbing of credentials from text and values before they reach a log line or an error message.
// Patterns cover every credential shape of the service (secrets, session tokens, webhook secrets) and
// HTTP authorization schemes; keys cover the property names under which a credential may travel.

const TEXT_PATTERNS: readonly RegExp[] = [
  /svc_(?:live|test)_[A-Za-z0-9_-]+/g,
  /svcat_[A-Za-z0-9_-]+/g,
  /whsec_[A-Za-z0-9_\-+/=]+/g,
  /sbx_admin_[A-Za-z0-9_-]+/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi,
];

export const REDACTED = '[redacted]';

/** Property names whose values are credentials, compared lower-case with `-` and `_` removed. */
const SECRET_KEYS = new Set([
  'secret',
  'svcsecret',
  'password',
  'token',
  'accesstoken',
  'sessiontoken',
  'refreshtoken',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'webhooksecret',
  'signingsecret',
  'admintoken',
]);

export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase().replace(/[-_]/g, ''));
}

/** The text with every credential-shaped substring replaced. */
export function redactText(text: string): string {
  let out = text;
  for (const re of TEXT_PATTERNS) {
    re.lastIndex = 0;
    out = out.replace(re, (_match, scheme: unknown) => (typeof scheme === 'string' ? `${scheme} ${REDACTED}` : REDACTED));
  }
  return out;
}

/**
 * A copy of `value` with credentials removed at every depth: values under secret-named keys are
 * replaced, strings are scrubbed by pattern. Cycles and very deep values are cut off.
 */
export function redactDeep(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 12 || seen.has(value)) return '[cut]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  const source = value instanceof Error ? errorFields(value) : (value as Record<string, unknown>);
  for (const [k, v] of Object.entries(source)) {
    out[k] = isSecretKey(k) && v !== undefined && v !== null ? REDACTED : redactDeep(v, depth + 1, seen);
  }
  return out;
}

function errorFields(err: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { type: err.name, message: err.message, stack: err.stack };
  for (const [k, v] of Object.entries(err)) fields[k] = v;
  if (err.cause !== undefined) fields.cause = err.cause;
  return fields;
}
