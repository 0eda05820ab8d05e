// Raw HTTP against the running sandbox, for the sandbox's contract tests: no project client in between,
// so each test reads the service exactly as the spec words it (status, headers, JSON body).
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { type KeyPair, type SandboxHandle, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';

export type { KeyPair, SandboxHandle };

/** Parsed JSON: the tests themselves check its shape against the spec. */
export type Json = any;

export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  body: Json;
  text: string;
  ms: number;
}

export interface SendOptions {
  headers?: Record<string, string>;
  /** Serialised as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is; give a Content-Type in `headers` when wanted. */
  raw?: string | Buffer;
}

export async function send(method: string, url: string, options: SendOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let body: string | Buffer | undefined = options.raw;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const started = performance.now();
  const res = await request(url, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  let parsed: Json;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: flat, body: parsed, text, ms: performance.now() - started };
}

/** Starts a sandbox on 127.0.0.1 with a port of its own. */
export function start(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ port: 0, ...options });
}

export interface Session {
  baseUrl: string;
  keyId: string;
  token: string;
  /** The whole 201 body of the sign-in. */
  signIn: Json;
}

/** The same secret with its last character changed: surely wrong. */
export function wrongSecret(secret: string): string {
  return `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
}

export function signInRaw(baseUrl: string, key: KeyPair): Promise<Reply> {
  return send('POST', `${baseUrl}/api/v1/auth/token`, { json: { key_id: key.key_id, secret: key.secret } });
}

export async function signIn(baseUrl: string, key: KeyPair): Promise<Session> {
  const reply = await signInRaw(baseUrl, key);
  if (reply.status !== 201) throw new Error(`sign-in answered ${reply.status}: ${reply.text}`);
  return { baseUrl, keyId: key.key_id, token: reply.body.access_token, signIn: reply.body };
}

export function authHeaders(session: Session, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${session.token}`, 'x-service-key': session.keyId, ...extra };
}

/** `path` is relative to the base URL (`/api/v1/customers?page=2`) or a whole URL from `links`. */
export function get(session: Session, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const url = path.startsWith('http') ? path : `${session.baseUrl}${path}`;
  return send('GET', url, { headers: authHeaders(session, headers) });
}

export function post(session: Session, path: string, json: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send('POST', `${session.baseUrl}${path}`, { headers: authHeaders(session, headers), json });
}

/** A call to the admin interface under /_sandbox. */
export function admin(sb: SandboxHandle, method: string, path: string, json?: unknown): Promise<Reply> {
  const options: SendOptions = { headers: { authorization: `Bearer ${sb.adminToken}` } };
  if (json !== undefined) options.json = json;
  return send(method, `${sb.baseUrl}/_sandbox${path}`, options);
}

/** Makes a key set through the admin interface and returns its key ID and secret. */
export async function makeKey(sb: SandboxHandle, mode: 'live' | 'test', scopes?: string[], businessId?: number): Promise<KeyPair> {
  const body: Record<string, unknown> = { mode };
  if (scopes !== undefined) body.scopes = scopes;
  if (businessId !== undefined) body.business_id = businessId;
  const reply = await admin(sb, 'POST', '/keys', body);
  if (reply.status !== 201) throw new Error(`POST /_sandbox/keys answered ${reply.status}: ${reply.text}`);
  return { key_id: reply.body.key_id, secret: reply.body.secret };
}

export async function advanceClock(sb: SandboxHandle, seconds: number): Promise<void> {
  const reply = await admin(sb, 'POST', '/clock', { advance_seconds: seconds });
  if (reply.status !== 200) throw new Error(`POST /_sandbox/clock answered ${reply.status}: ${reply.text}`);
}

/** The total and the last (highest) id of a list, without reading it whole. */
export async function tally(session: Session, resource: string): Promise<{ total: number; maxId: number }> {
  const first = await get(session, `/api/v1/${resource}?per_page=1`);
  const total = first.body.meta.total;
  const last = await get(session, `/api/v1/${resource}?per_page=1&page=${total}`);
  return { total, maxId: last.body.data[0].id };
}

/** Every record of a list, page by page at per_page=100, following `links.next`. */
export async function listAll(session: Session, path: string): Promise<Json[]> {
  const out: Json[] = [];
  let url: string | null = `${path}${path.includes('?') ? '&' : '?'}per_page=100`;
  while (url) {
    const reply = await get(session, url);
    if (reply.status !== 200) throw new Error(`GET ${url} answered ${reply.status}: ${reply.text}`);
    out.push(...reply.body.data);
    url = reply.body.links.next;
  }
  return out;
}

// ---- shapes and values the spec prescribes ----

export const MONEY_RE = /^-?\d+\.\d{2}$/;
export const QUANTITY_RE = /^\d+\.\d{6}$/;
export const DECIMAL_RE = /^-?\d+(\.\d+)?$/;
export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+1[23]:00$/;

const NZ = 'Pacific/Auckland';
const offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: NZ, timeZoneName: 'longOffset' });

/** The offset New Zealand has at instant `ms`, written `+13:00` or `+12:00`. */
export function nzOffset(ms: number): string {
  const name = offsetFormat.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  return name.replace('GMT', '');
}

/** True when `text` is a timestamp with the offset New Zealand really had at that instant. */
export function isNzTimestamp(text: unknown): boolean {
  if (typeof text !== 'string' || !TIMESTAMP_RE.test(text)) return false;
  return text.endsWith(nzOffset(Date.parse(text)));
}

/** The instant of 00:00:00 on `date` in New Zealand. */
export function nzMidnight(date: string): number {
  for (const offset of ['+13:00', '+12:00']) {
    const ms = Date.parse(`${date}T00:00:00${offset}`);
    if (nzOffset(ms) === offset) return ms;
  }
  throw new Error(`no New Zealand midnight on ${date}`);
}

/** The New Zealand calendar date at instant `ms`. */
export function nzDate(ms: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: NZ, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
}

/** `ms` written with a +13:00 offset, whatever the season (a valid ISO 8601 form of the same instant). */
export function at1300(ms: number): string {
  return `${new Date(ms + 13 * 3600_000).toISOString().slice(0, 19)}+13:00`;
}

export function isCalendarDate(text: unknown): boolean {
  if (typeof text !== 'string' || !DATE_RE.test(text)) return false;
  return new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;
}

/** A money string as whole cents, exactly. */
export function cents(text: string): bigint {
  if (!MONEY_RE.test(text)) throw new Error(`not a money string: ${text}`);
  const negative = text.startsWith('-');
  const [whole, frac] = text.replace('-', '').split('.') as [string, string];
  const value = BigInt(whole) * 100n + BigInt(frac);
  return negative ? -value : value;
}

/** A decimal string scaled by 10^places, exactly (places at least its own). */
export function scaled(text: string, places: number): bigint {
  if (!DECIMAL_RE.test(text)) throw new Error(`not a decimal string: ${text}`);
  const negative = text.startsWith('-');
  const [whole, frac = ''] = text.replace('-', '').split('.') as [string, string | undefined];
  if (frac.length > places) throw new Error(`${text} has more than ${places} places`);
  const value = BigInt(whole) * 10n ** BigInt(places) + BigInt(frac.padEnd(places, '0') || '0');
  return negative ? -value : value;
}

export function sortedKeys(value: Json): string[] {
  return Object.keys(value).sort();
}

/** Checks `X-Service-Signature: t=UNIX,v1=HEX` with an HMAC-SHA256 computed here over `t + "." + body`. */
export function verifySignature(header: string | undefined, rawBody: string, secret: string): { valid: boolean; t: number } {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return { valid: false, t: NaN };
  const expected = createHmac('sha256', secret).update(`${m[1]}.${rawBody}`).digest('hex');
  return { valid: expected === m[2], t: Number(m[1]) };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

// ---- the tests' own calendar arithmetic on YYYY-MM-DD dates (never the sandbox's) ----

/** Days since 1970-01-01 of a calendar date. */
export const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** `date` plus `days`. */
export const plusDays = (date: string, days: number): string => new Date((dayNumber(date) + days) * 86_400_000).toISOString().slice(0, 10);
