// Query strings sent exactly, loopback detection, back-off with jitter.
import { describe, expect, it } from 'vitest';
import { backoffDelay, isTransientNetworkError, queryString } from '../../src/api/http.js';
import { isLoopbackHost } from '../../src/core/loopback.js';

describe('queryString', () => {
  it('sorts the keys, skips empty values, and sends + as %2B', () => {
    expect(queryString({ updated_since: '2026-01-01T00:00:00+13:00', page: 2, status: undefined, active: false, x: null })).toBe(
      '?active=false&page=2&updated_since=2026-01-01T00%3A00%3A00%2B13%3A00',
    );
    expect(queryString({ b: 1, a: 2 })).toBe(queryString({ a: 2, b: 1 }));
    expect(queryString({ search: 'A & B Ltd' })).toBe('?search=A%20%26%20B%20Ltd');
    expect(queryString({ updated_since: new Date('2026-03-01T00:00:00Z') })).toBe('?updated_since=2026-03-01T00%3A00%3A00.000Z');
    expect(queryString({})).toBe('');
    expect(queryString(undefined)).toBe('');
  });
});

describe('isLoopbackHost', () => {
  it('knows 127.0.0.0/8, localhost and ::1', () => {
    for (const h of ['127.0.0.1', '127.255.0.9', 'localhost', 'LOCALHOST', '[::1]']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['128.0.0.1', '127.0.0.256', 'example.com', 'localhost.evil.com', '[::2]', '0.0.0.0'])
      expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('backoffDelay', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1000 };
  it('doubles per retry up to the cap, with jitter in the upper half', () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(3, policy, () => 1)).toBe(400);
    expect(backoffDelay(10, policy, () => 1)).toBe(1000);
    expect(backoffDelay(10, policy, () => 0)).toBe(500);
  });
});

describe('isTransientNetworkError', () => {
  it('retries resets and timeouts, not TLS trust or unknown hosts', () => {
    expect(isTransientNetworkError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransientNetworkError(Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }))).toBe(true);
    expect(isTransientNetworkError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toBe(true);
    expect(isTransientNetworkError(Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }))).toBe(false);
    expect(isTransientNetworkError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe(false);
    expect(isTransientNetworkError(new Error('x', { cause: Object.assign(new Error('y'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }) }))).toBe(
      false,
    );
  });
});
