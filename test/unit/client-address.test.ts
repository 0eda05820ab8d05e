// Who a request comes from (src/http/client-address.ts): the socket's address unless it is a proxy named by
// --trust-proxy, then the rightmost X-Forwarded-For entry that is not one; a forged header from anyone else
// changes nothing.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddressOf, fromTrustedProxy, proxyEntryProblem } from '../../src/http/client-address.js';

const req = (socket: string, forwarded?: string | string[]): IncomingMessage =>
  ({ socket: { remoteAddress: socket }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as IncomingMessage;

describe('the client address', () => {
  it('is the socket when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddressOf([])(req('203.0.113.5', '198.51.100.1'))).toBe('203.0.113.5');
    expect(clientAddressOf([])(req('::ffff:127.0.0.1'))).toBe('127.0.0.1');
  });

  it('is the rightmost forwarded address that is not a trusted proxy', () => {
    const of = clientAddressOf(['10.0.0.0/8', '127.0.0.1']);
    expect(of(req('127.0.0.1', '198.51.100.7'))).toBe('198.51.100.7');
    // The client may write what it likes at the left; the proxies' own entries are to its right.
    expect(of(req('127.0.0.1', '1.2.3.4, 198.51.100.7, 10.1.2.3'))).toBe('198.51.100.7');
    expect(of(req('::ffff:10.0.0.9', ['1.2.3.4', '198.51.100.8']))).toBe('198.51.100.8');
    expect(of(req('127.0.0.1', '[2001:db8::1]:4711'))).toBe('2001:db8::1');
    expect(of(req('127.0.0.1', '192.0.2.4:5050'))).toBe('192.0.2.4');
  });

  it('is not taken from a client that is not a trusted proxy, nor from a malformed entry', () => {
    const of = clientAddressOf(['10.0.0.0/8']);
    expect(of(req('203.0.113.9', '198.51.100.7'))).toBe('203.0.113.9');
    expect(of(req('10.0.0.1', 'not-an-address'))).toBe('10.0.0.1');
    expect(of(req('10.0.0.1'))).toBe('10.0.0.1');
  });

  it('is worked out with the proxies given as addresses and ranges, each checked', () => {
    expect(proxyEntryProblem('10.0.0.0/8')).toBeNull();
    expect(proxyEntryProblem('2001:db8::/32')).toBeNull();
    expect(proxyEntryProblem('127.0.0.1')).toBeNull();
    expect(proxyEntryProblem('proxy.internal')).toMatch(/not an IP address/);
    expect(proxyEntryProblem('10.0.0.0/33')).toMatch(/prefix length/);
    expect(clientAddressOf(['2001:db8::/32'])(req('2001:db8::5', '198.51.100.1'))).toBe('198.51.100.1');
  });

  it('comes from a trusted proxy only when the socket itself is one (whatever X-Forwarded-For says)', () => {
    const trusted = fromTrustedProxy(['10.0.0.0/8', '::1']);
    expect(trusted(req('10.1.2.3'))).toBe(true);
    expect(trusted(req('::ffff:10.1.2.3'))).toBe(true);
    expect(trusted(req('::1'))).toBe(true);
    expect(trusted(req('203.0.113.9', '10.1.2.3'))).toBe(false);
    expect(trusted(req(''))).toBe(false);
    expect(fromTrustedProxy([])(req('10.1.2.3'))).toBe(false);
  });
});
