// Which addresses the server may connect to when a stranger names the URL (src/hosted/oauth/public-address.ts):
// the public internet's only. Every range that reaches this machine, a private network, a link or nothing
// is refused, in IPv4 and IPv6, and so is an IPv6 address that carries a refused IPv4 one.
import { describe, expect, it } from 'vitest';
import { publicAddressCheck } from '../../src/hosted/oauth/public-address.js';

const isPublic = publicAddressCheck();

const NOT_PUBLIC = [
  // IPv4
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254', // cloud metadata
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.1',
  '192.88.99.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6
  '::',
  '::1',
  '[::1]',
  '0:0:0:0:0:0:0:1',
  'fc00::1',
  'fd12:3456:789a::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1', // site-local (deprecated)
  'ff02::1',
  'ff05::1:3',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:1',
  '[::ffff:10.0.0.1]',
  '::ffff:169.254.169.254',
  '::127.0.0.1', // IPv4-compatible (deprecated)
  '64:ff9b::127.0.0.1', // NAT64 carrying loopback
  '64:ff9b::a00:1', // NAT64 carrying 10.0.0.1
  '64:ff9b::c0a8:101', // NAT64 carrying 192.168.1.1
  '64:ff9b:1::8.8.8.8', // local-use NAT64
  '100::1',
  '2001::1', // Teredo
  '2001:db8::1',
  '2002:7f00:1::1', // 6to4
  '3fff::1',
  // not an address at all
  'localhost',
  'example.com',
  '',
  '127.1',
  '2130706433',
];

const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '192.169.0.1',
  '198.20.0.1',
  '223.255.255.254',
  '2606:4700:4700::1111',
  '[2a00:1450:4001:81b::200e]',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
  '64:ff9b::808:808',
];

describe('a public address', () => {
  it.each(NOT_PUBLIC)('is not %s', (address) => {
    expect(isPublic(address)).toBe(false);
  });

  it.each(PUBLIC)('is %s', (address) => {
    expect(isPublic(address)).toBe(true);
  });
});
