// The logger removes credentials at every depth: in objects, messages, errors and their causes.
import { describe, expect, it } from 'vitest';
import { Unauthorized } from '../../src/api/errors.js';
import { redactDeep, redactText } from '../../src/log/redact.js';
import { captureLogs, findLeaks } from '../support/logs.js';

const SECRET = 'svc_live_0123456789abcdefghij0123456789abcdefghij';
const TOKEN = 'svcat_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd';
const WEBHOOK = 'whsec_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5';

describe('redactText', () => {
  it('removes secrets, session tokens, webhook secrets and authorization values', () => {
    const text = `key ${SECRET} token ${TOKEN} hook ${WEBHOOK} header Bearer ${TOKEN} basic Basic c3ZjazpzdmM=`;
    const out = redactText(text);
    expect(findLeaks(out, [SECRET, TOKEN, WEBHOOK])).toEqual([]);
    expect(out).toContain('Bearer [redacted]');
    expect(out).toContain('key [redacted]');
  });

  it('leaves key IDs and ordinary text alone', () => {
    expect(redactText('key svck_test_abc signed in; 3 invoices')).toBe('key svck_test_abc signed in; 3 invoices');
  });
});

describe('redactDeep', () => {
  it('redacts by key and by value at any depth, without touching the input', () => {
    const input = { a: { b: { c: { d: { e: { secret: 'plain', note: `x ${TOKEN}` } } } } }, list: [{ Authorization: 'x' }] };
    const out = redactDeep(input) as typeof input;
    expect(out.a.b.c.d.e).toEqual({ secret: '[redacted]', note: 'x [redacted]' });
    expect(out.list[0]?.Authorization).toBe('[redacted]');
    expect(input.a.b.c.d.e.secret).toBe('plain');
  });

  it('survives cycles', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    expect(redactDeep(loop)).toEqual({ name: 'loop', self: '[cut]' });
  });
});

describe('createLogger', () => {
  it('writes no credential, whatever is logged and however deep', () => {
    const logs = captureLogs('trace');
    const log = logs.logger.child({ component: 'test', token: TOKEN });
    log.info(
      { secret: SECRET, webhookSecret: WEBHOOK, headers: { authorization: `Bearer ${TOKEN}`, 'x-service-key': 'svck_live_x' } },
      'signing in',
    );
    log.debug(
      { req: { nested: { deeper: { deepest: { access_token: TOKEN, password: 'pw', body: `{"secret":"${SECRET}"}` } } } } },
      'deep',
    );
    log.warn(`message with ${SECRET} and Bearer ${TOKEN}`);
    log.info('interpolated %s and %o', SECRET, { token: TOKEN });
    const cause = new Error(`inner ${TOKEN}`);
    const err = new Unauthorized(`outer ${SECRET}`, { cause });
    (err as unknown as Record<string, unknown>).config = { secret: SECRET, headers: { Authorization: `Basic ${SECRET}` } };
    log.error({ err }, 'failed');
    log.error(err);
    log.error(new Error(`plain ${WEBHOOK}`));
    const text = logs.text();
    expect(findLeaks(text, [SECRET, TOKEN, WEBHOOK, 'pw"'])).toEqual([]);
    expect(text).toContain('svck_live_x');
    const lines = logs.lines();
    expect(lines).toHaveLength(7);
    expect(lines[4]?.err).toMatchObject({ type: 'Unauthorized', message: 'outer [redacted]' });
    expect(JSON.stringify(lines[4])).toContain('inner [redacted]');
  });

  it('writes JSON lines to the destination given, at the level given', () => {
    const logs = captureLogs('warn');
    logs.logger.info('not written');
    logs.logger.warn('written');
    expect(logs.lines().map((l) => l.msg)).toEqual(['written']);
  });
});
