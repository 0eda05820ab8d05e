// The webhook signature (open-points "Events (webhooks)"): HMAC-SHA256 of `t.rawBody`, constant-time
// compare, age at most 300 s either way, and a refusal that names its reason but never the secret.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from '../../src/events/signature.js';

const SECRET = 'whsec_unit0123456789abcdef';
const BODY = '{"id":"evt_1","event":"invoice.sent","created_at":"2026-11-23T10:00:00+13:00","data":{"invoice":{"id":7}}}';
const T = 1_795_000_000;
const NOW = T * 1000;

const hex = (t: number, body: string, secret = SECRET) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('verifySignature', () => {
  it('accepts a header computed independently, for a string or a Buffer body', () => {
    const header = `t=${T},v1=${hex(T, BODY)}`;
    expect(signPayload(SECRET, T, BODY)).toBe(header);
    expect(verifySignature(header, BODY, SECRET, NOW)).toEqual({ ok: true, timestamp: T });
    expect(verifySignature(header, Buffer.from(BODY), SECRET, NOW).ok).toBe(true);
  });

  it('refuses a wrong secret, a changed body and a changed t as a mismatch', () => {
    const header = signPayload(SECRET, T, BODY);
    expect(verifySignature(header, BODY, `${SECRET}x`, NOW)).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(verifySignature(header, `${BODY} `, SECRET, NOW)).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(verifySignature(header.replace(`t=${T}`, `t=${T + 1}`), BODY, SECRET, NOW)).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('refuses a missing or malformed header without throwing', () => {
    const v1 = hex(T, BODY);
    expect(verifySignature(undefined, BODY, SECRET, NOW)).toMatchObject({ ok: false, reason: 'missing' });
    expect(verifySignature('', BODY, SECRET, NOW)).toMatchObject({ ok: false, reason: 'missing' });
    for (const bad of [
      `v1=${v1},t=${T}`,
      `t=${T},v1=${v1.slice(0, -1)}`,
      `t=${T},v1=${v1}00`,
      `t=${T},v1=${v1.toUpperCase()}`,
      `t=${T}, v1=${v1}`,
      `t=-${T},v1=${v1}`,
      `t=${T},v1=${v1},v0=00`,
      `t=${T}`,
      'garbage',
    ]) {
      expect(verifySignature(bad, BODY, SECRET, NOW), bad).toMatchObject({ ok: false, reason: 'malformed' });
    }
    expect(verifySignature([`t=${T},v1=${v1}`], BODY, SECRET, NOW)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuses a delivery more than 300 s from our clock, either way; 300 s exactly passes', () => {
    for (const [t, ok] of [
      [T - 300, true],
      [T + 300, true],
      [T - 301, false],
      [T + 301, false],
      [T - 86_400, false],
    ] as const) {
      const check = verifySignature(`t=${t},v1=${hex(t, BODY)}`, BODY, SECRET, NOW);
      expect(check.ok, String(t - T)).toBe(ok);
      if (!check.ok) expect(check.reason).toBe('stale');
    }
  });

  it('checks the HMAC before the age: a forged stale header is a mismatch', () => {
    expect(verifySignature(`t=${T - 1000},v1=${'0'.repeat(64)}`, BODY, SECRET, NOW)).toMatchObject({ reason: 'mismatch' });
  });

  it('never puts the secret or the signature in its answer', () => {
    const header = signPayload(SECRET, T, BODY);
    for (const check of [
      verifySignature(header, BODY, 'whsec_other', NOW),
      verifySignature(header, BODY, SECRET, NOW + 10_000_000),
      verifySignature('t=1,v1=zz', BODY, SECRET, NOW),
    ]) {
      const text = JSON.stringify(check);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(header.slice(-64));
    }
  });
});
