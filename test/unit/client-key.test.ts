import { describe, expect, it } from 'vitest';
import { clientKey } from '../../src/http/client-key.js';

describe('the client an address counts as', () => {
  it('is an IPv4 address itself, written plain or as IPv6', () => {
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it("is an IPv6 address's /64, in any spelling of it", () => {
    const one = clientKey('2001:db8:1:2::1');
    expect(one).toBe('2001:db8:1:2::/64');
    for (const same of [
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:0:0:0:9',
      '2001:db8:1:2::192.0.2.1',
      '2001:db8:1:2::5%eth0',
    ])
      expect(clientKey(same)).toBe(one);
    expect(clientKey('2001:db8:1:3::1')).not.toBe(one);
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('is anything else as it is (no socket address: the empty string)', () => {
    expect(clientKey('')).toBe('');
  });
});
