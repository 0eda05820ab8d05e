// One factory from status + body to typed errors that keep the service's message and say what to do.
import { describe, expect, it } from 'vitest';
import {
  errorFromResponse,
  Forbidden,
  fieldErrorsOf,
  Invalid,
  MissingScope,
  NotFound,
  parseRetryAfter,
  type RateLimited,
  ServiceFault,
  Unauthorized,
  UnexpectedResponse,
} from '../../src/api/errors.js';

const call = { method: 'GET', path: '/api/v1/invoices/9' };
const make = (status: number, body: unknown, headers: Record<string, string> = {}, extra = {}) =>
  errorFromResponse({ status, body, headers }, { ...call, ...extra });

describe('errorFromResponse', () => {
  it('401 is Unauthorized and says what to fix, by phase', () => {
    const e = make(401, { message: 'Wrong key ID or secret.' }, {}, { phase: 'sign-in' });
    expect(e).toBeInstanceOf(Unauthorized);
    expect(e.message).toMatch(/^Sign-in was refused \(401: Wrong key ID or secret\.\)/);
    expect(e.message).toMatch(/regenerated or revoked/);
    expect(e.serviceMessage).toBe('Wrong key ID or secret.');
    expect(make(401, {}, {}, { phase: 'replay' }).message).toMatch(/even with a fresh session/);
  });

  it('403 with required_scope is MissingScope (also a Forbidden)', () => {
    const e = make(403, { message: 'This key lacks the quotes.read scope.', required_scope: 'quotes.read' });
    expect(e).toBeInstanceOf(MissingScope);
    expect(e).toBeInstanceOf(Forbidden);
    expect((e as MissingScope).requiredScope).toBe('quotes.read');
    expect(e.code).toBe('missing_scope');
    expect(e.message).toMatch(/lacks the quotes\.read scope/);
  });

  it('other 403s are Forbidden and say a sign-in does not help', () => {
    const e = make(403, { message: 'The key set is suspended by the business.' });
    expect(e).toBeInstanceOf(Forbidden);
    expect(e).not.toBeInstanceOf(MissingScope);
    expect(e.message).toMatch(/Signing in again does not help/);
  });

  it('404 is NotFound, 422 is Invalid with field errors, other 4xx Invalid', () => {
    expect(make(404, { message: 'No invoice 9.' })).toBeInstanceOf(NotFound);
    const e = make(422, {
      message: 'The given data was invalid',
      errors: { 'items.0.quantity': ['must be greater than 0'], name: 'required' },
    });
    expect(e).toBeInstanceOf(Invalid);
    expect((e as Invalid).fieldErrors).toEqual({ 'items.0.quantity': ['must be greater than 0'], name: ['required'] });
    expect(e.message).toMatch(/Fix: items\.0\.quantity: must be greater than 0 \| name: required/);
    expect(make(400, { message: 'bad json' })).toBeInstanceOf(Invalid);
    expect(make(409, undefined).message).toMatch(/HTTP 409/);
  });

  it('429 is RateLimited with Retry-After in seconds (delta or date), at least 1', () => {
    expect((make(429, {}, { 'retry-after': '17' }) as RateLimited).retryAfter).toBe(17);
    const at = new Date(Date.now() + 5000).toUTCString();
    expect((make(429, {}, { 'retry-after': at }) as RateLimited).retryAfter).toBeGreaterThanOrEqual(4);
    expect((make(429, {}) as RateLimited).retryAfter).toBe(1);
    expect(make(429, {}, { 'retry-after': '3' }).message).toMatch(/Retry after 3 seconds/);
  });

  it('5xx is ServiceFault; a create names its idempotency key', () => {
    const e = make(503, { message: 'down' }, {}, { method: 'POST', idempotencyKey: 'k-1', attempts: 6 });
    expect(e).toBeInstanceOf(ServiceFault);
    expect(e.attempts).toBe(6);
    expect(e.idempotencyKey).toBe('k-1');
    expect(e.message).toMatch(/same idempotency key \(k-1\)/);
  });

  it('anything else is UnexpectedResponse', () => {
    expect(make(302, {})).toBeInstanceOf(UnexpectedResponse);
  });

  it('scrubs credentials out of the service message', () => {
    const e = make(401, { message: 'token svcat_AAAAAAAAAAAAAAAAAAAAAAAA is not valid; secret svc_live_BBBBBBBBBBBBBBBB' });
    expect(e.message).not.toMatch(/svcat_A|svc_live_B/);
    expect(e.serviceMessage).not.toMatch(/svcat_A|svc_live_B/);
  });

  it('tolerates bodies of any shape', () => {
    for (const body of [undefined, null, 'text', 42, [], { message: 7 }, { errors: 'no' }]) {
      expect(() => make(422, body)).not.toThrow();
    }
  });
});

describe('helpers', () => {
  it('parseRetryAfter reads seconds and dates, and gives null for nonsense', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('1.2')).toBe(2);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });

  it('fieldErrorsOf flattens nested objects to dotted paths', () => {
    expect(fieldErrorsOf({ errors: { items: { 0: { quantity: ['bad'] } } } })).toEqual({ 'items.0.quantity': ['bad'] });
  });
});
