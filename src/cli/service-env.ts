// Settings of the service connection, read from the environment by one zod schema into a frozen config.
// Pure: reads only the object it is given, never process.env itself, and writes nothing.

import { z } from 'zod';
import { baseUrlProblem, normaliseBaseUrl } from '../api/url.js';
import { DEFAULT_POLL_SECONDS } from '../books/books-mirror.js';

export type Mode = 'live' | 'test';

export interface ServiceConfig {
  /** No trailing slash. */
  readonly baseUrl: string;
  readonly keyId: string;
  /** Non-enumerable: left out of JSON.stringify, logs and inspection. */
  readonly secret: string;
  readonly mode: Mode;
  /** The webhook endpoint's signing secret, when set; non-enumerable like `secret`. */
  readonly webhookSecret: string | null;
  /** The longest gap between the books mirror's background syncs (s, a fraction only by SVC_POLL_MS); 0 = none. */
  readonly pollSeconds: number;
}

/** A setting is missing or malformed. `message` is one line: which setting, and how to fix it. */
export class ConfigError extends Error {
  readonly exitCode = 2;
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

const KEY_ID_RE = /^svck_(live|test)_[A-Za-z0-9_-]+$/;
const SECRET_RE = /^svc_(live|test)_[A-Za-z0-9_-]+$/;

/** Unset, empty and blank all mean "not set". */
const optionalText = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined), z.string().optional());

function required(name: string, fix: string) {
  return optionalText.check((ctx) => {
    if (ctx.value === undefined) ctx.issues.push({ code: 'custom', input: undefined, message: `${name} is not set: ${fix}` });
  });
}

const baseUrlSchema = required('SVC_BASE_URL', 'set it to the https:// base URL of the Invoicing Service').check((ctx) => {
  if (ctx.value === undefined) return;
  let url: URL;
  try {
    url = new URL(ctx.value);
  } catch {
    ctx.issues.push({
      code: 'custom',
      input: '',
      message: 'SVC_BASE_URL is not a URL: give an absolute https:// URL such as https://invoicing.example.com',
    });
    return;
  }
  const problem = baseUrlProblem(url);
  if (problem) ctx.issues.push({ code: 'custom', input: '', message: `SVC_BASE_URL ${problem}` });
});

const keyIdSchema = required('SVC_KEY_ID', 'set it to the key ID from the developer console (it starts svck_live_ or svck_test_)').check(
  (ctx) => {
    const v = ctx.value;
    if (v === undefined || KEY_ID_RE.test(v)) return;
    const message = SECRET_RE.test(v)
      ? 'SVC_KEY_ID holds a secret (svc_...), not a key ID: swap the values of SVC_KEY_ID and SVC_SECRET'
      : 'SVC_KEY_ID is malformed: it must be the key ID from the developer console, starting svck_live_ or svck_test_';
    ctx.issues.push({ code: 'custom', input: '', message });
  },
);

const secretSchema = required(
  'SVC_SECRET',
  "set it to the key's secret (it starts svc_live_ or svc_test_ and is shown once when the key is made)",
).check((ctx) => {
  const v = ctx.value;
  if (v === undefined || SECRET_RE.test(v)) return;
  const message = KEY_ID_RE.test(v)
    ? 'SVC_SECRET holds a key ID (svck_...), not a secret: swap the values of SVC_KEY_ID and SVC_SECRET'
    : v.startsWith('svcat_')
      ? "SVC_SECRET holds a session token (svcat_...), not a secret: set it to the key's secret (svc_live_... or svc_test_...)"
      : "SVC_SECRET is malformed: it must be the key's secret, starting svc_live_ or svc_test_";
  ctx.issues.push({ code: 'custom', input: '', message });
});

const webhookSecretSchema = optionalText.check((ctx) => {
  const v = ctx.value;
  if (v === undefined) return;
  if (!v.startsWith('whsec_')) {
    ctx.issues.push({
      code: 'custom',
      input: '',
      message:
        "SVC_WEBHOOK_SECRET must be the webhook endpoint's signing secret, starting whsec_ (not the key's secret or key ID), or leave it unset",
    });
  } else if (/\s/.test(v) || v.length < 14) {
    ctx.issues.push({
      code: 'custom',
      input: '',
      message:
        "SVC_WEBHOOK_SECRET is malformed: set it to the webhook endpoint's signing secret (whsec_...), whole and without spaces, or leave it unset",
    });
  }
});

const pollSecondsSchema = optionalText.check((ctx) => {
  const v = ctx.value;
  if (v === undefined) return;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 86_400) {
    ctx.issues.push({
      code: 'custom',
      input: '',
      message: `SVC_POLL_SECONDS must be a whole number of seconds from 1 to 86400, or 0 to turn polling off (default ${DEFAULT_POLL_SECONDS})`,
    });
  }
});

export const ServiceEnvSchema = z
  .object({
    SVC_BASE_URL: baseUrlSchema,
    SVC_KEY_ID: keyIdSchema,
    SVC_SECRET: secretSchema,
    SVC_WEBHOOK_SECRET: webhookSecretSchema,
    SVC_POLL_SECONDS: pollSecondsSchema,
  })
  .check((ctx) => {
    const keyMode = KEY_ID_RE.exec(ctx.value.SVC_KEY_ID ?? '')?.[1];
    const secretMode = SECRET_RE.exec(ctx.value.SVC_SECRET ?? '')?.[1];
    if (keyMode && secretMode && keyMode !== secretMode) {
      ctx.issues.push({
        code: 'custom',
        input: '',
        path: ['SVC_SECRET'],
        message: `SVC_KEY_ID is a ${keyMode} key (svck_${keyMode}_) but SVC_SECRET is a ${secretMode} secret (svc_${secretMode}_): use the key ID and secret of the same key`,
      });
    }
  });

export type ServiceEnv = Record<string, string | undefined>;

/** True when the environment names a key at all (else the CLI may run on the embedded sandbox). */
export function hasServiceKey(env: ServiceEnv): boolean {
  return [env.SVC_KEY_ID, env.SVC_SECRET].some((v) => typeof v === 'string' && v.trim() !== '');
}

/** Several settings are missing: name them all, each with its fix, in one line. */
function missingMessage(messages: string[]): string {
  const names = messages.map((m) => m.slice(0, m.indexOf(' is not set: ')));
  const fixes = messages.map((m, i) => `${names[i]}: ${m.slice(m.indexOf(' is not set: ') + 13)}`);
  const list = `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return `${list} are not set (${fixes.join('; ')}). Or set none of SVC_BASE_URL, SVC_KEY_ID and SVC_SECRET to run on the built-in sandbox.`;
}

/**
 * SVC_POLL_MS, not a setting for users (not in the schema, the usage, the README or server.json): the test
 * suite's way to have the mirror poll finer than SVC_POLL_SECONDS's whole seconds, so that a test of polling
 * waits tenths of a second, not seconds. When set, it stands in for SVC_POLL_SECONDS.
 */
function finerPollSeconds(env: ServiceEnv): number | null {
  const v = env.SVC_POLL_MS?.trim();
  if (!v) return null;
  if (!/^\d+$/.test(v) || Number(v) < 10 || Number(v) > 86_400_000)
    throw new ConfigError('SVC_POLL_MS', 'SVC_POLL_MS must be a whole number of milliseconds from 10 to 86400000');
  return Number(v) / 1000;
}

/** The longest gap between background syncs, from SVC_POLL_SECONDS (or SVC_POLL_MS); refused by name when wrong. */
export function readPollSeconds(env: ServiceEnv): number {
  const finer = finerPollSeconds(env);
  if (finer !== null) return finer;
  const parsed = pollSecondsSchema.safeParse(env.SVC_POLL_SECONDS);
  if (!parsed.success) throw new ConfigError('SVC_POLL_SECONDS', parsed.error.issues[0]?.message ?? 'SVC_POLL_SECONDS is invalid');
  return parsed.data === undefined ? DEFAULT_POLL_SECONDS : Number(parsed.data);
}

/** The frozen service config from `env`, or a ConfigError whose message is one line. */
export function loadServiceConfig(env: ServiceEnv): ServiceConfig {
  const parsed = ServiceEnvSchema.safeParse({
    SVC_BASE_URL: env.SVC_BASE_URL,
    SVC_KEY_ID: env.SVC_KEY_ID,
    SVC_SECRET: env.SVC_SECRET,
    SVC_WEBHOOK_SECRET: env.SVC_WEBHOOK_SECRET,
    SVC_POLL_SECONDS: env.SVC_POLL_SECONDS,
  });
  if (!parsed.success) {
    const missing = parsed.error.issues.filter((i) => / is not set: /.test(i.message));
    if (missing.length > 1) throw new ConfigError(String(missing[0]?.path[0]), missingMessage(missing.map((i) => i.message)));
    const issue = parsed.error.issues[0];
    const setting = String(issue?.path[0] ?? 'settings');
    throw new ConfigError(setting, issue?.message.replace(/\s+/g, ' ') ?? `${setting} is invalid`);
  }
  const v = parsed.data;
  const keyId = v.SVC_KEY_ID as string;
  const config = {
    baseUrl: normaliseBaseUrl(new URL(v.SVC_BASE_URL as string)),
    keyId,
    mode: (keyId.startsWith('svck_live_') ? 'live' : 'test') as Mode,
    pollSeconds: readPollSeconds(env),
  };
  Object.defineProperty(config, 'secret', { value: v.SVC_SECRET, enumerable: false });
  Object.defineProperty(config, 'webhookSecret', { value: v.SVC_WEBHOOK_SECRET ?? null, enumerable: false });
  return Object.freeze(config) as ServiceConfig;
}
