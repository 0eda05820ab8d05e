// The webhook signature: `X-Service-Signature: t=UNIX_SECONDS,v1=HEX`, HEX = HMAC-SHA256(secret, `t.rawBody`).
// Checked against the raw bytes, compared in constant time; a result never carries the secret or the header.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Deliveries further than this from our clock are refused (spec: five minutes). */
export const MAX_AGE_SECONDS = 300;

export type SignatureRefusal = 'missing' | 'malformed' | 'mismatch' | 'stale';

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: SignatureRefusal; message: string };

const HEADER_RE = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/;

const MESSAGES: Record<SignatureRefusal, string> = {
  missing: 'missing X-Service-Signature header',
  malformed: 'malformed X-Service-Signature header',
  mismatch: 'signature does not match',
  stale: 'delivery is more than 300 seconds from our clock',
};

const refuse = (reason: SignatureRefusal): SignatureCheck => ({ ok: false, reason, message: MESSAGES[reason] });

/** The header value the service would send (for tests and tools). */
export function signPayload(secret: string, unixSeconds: number, rawBody: string | Buffer): string {
  const hex = createHmac('sha256', secret).update(`${unixSeconds}.`).update(rawBody).digest('hex');
  return `t=${unixSeconds},v1=${hex}`;
}

/**
 * Checks `header` against `rawBody`: the HMAC first (so an attacker learns nothing of the age rule without
 * the secret), then the age against `nowMs`.
 */
export function verifySignature(
  header: string | readonly string[] | undefined,
  rawBody: Buffer | string,
  secret: string,
  nowMs: number = Date.now(),
): SignatureCheck {
  if (header === undefined || header === '') return refuse('missing');
  if (typeof header !== 'string') return refuse('malformed');
  const match = HEADER_RE.exec(header);
  if (!match) return refuse('malformed');
  const t = Number(match[1]);
  const given = Buffer.from(match[2] as string, 'hex');
  const expected = createHmac('sha256', secret).update(`${match[1]}.`).update(rawBody).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse('mismatch');
  if (Math.abs(nowMs / 1000 - t) > MAX_AGE_SECONDS) return refuse('stale');
  return { ok: true, timestamp: t };
}
