// Whether an IP address is one of the public internet's: the only kind the server connects to when a
// stranger names the URL (a client ID metadata document). Not public: unspecified, "this network",
// loopback, private, shared (CGNAT), link-local, unique-local, site-local, multicast, reserved, broadcast,
// benchmarking and documentation ranges. IPv6 is public only in global unicast (2000::/3) outside its
// special ranges; an IPv6 address that carries an IPv4 one (IPv4-mapped ::ffff:a.b.c.d, NAT64
// 64:ff9b::a.b.c.d) is as public as the IPv4 address it carries; 6to4 and Teredo, which reach IPv4 too,
// are refused whole.
import { BlockList, isIP } from 'node:net';

const V4_NOT_PUBLIC: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services among them
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
];

const V6_NOT_PUBLIC: readonly [string, number][] = [
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo among them
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['3fff::', 20], // documentation
];

const GLOBAL_UNICAST: readonly [string, number] = ['2000::', 3];

function blockList(ranges: readonly (readonly [string, number])[], type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, type);
  return list;
}

/** The eight 16-bit groups of an IPv6 address (any spelling the URL parser takes, a dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  if (tail === undefined) return groups(head);
  const left = groups(head);
  const right = groups(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) address, if it is one. */
function carriedV4(groups: number[]): string | null {
  const prefix = groups.slice(0, 6).join(':');
  if (prefix !== '0:0:0:0:0:65535' && prefix !== '100:65435:0:0:0:0') return null;
  const [hi = 0, lo = 0] = groups.slice(6);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** A check that is true only for an address of the public internet; anything that is not an IP address is not. */
export function publicAddressCheck(): (address: string) => boolean {
  const v4 = blockList(V4_NOT_PUBLIC, 'ipv4');
  const v6 = blockList(V6_NOT_PUBLIC, 'ipv6');
  const global = blockList([GLOBAL_UNICAST], 'ipv6');
  const publicV4 = (address: string) => !v4.check(address, 'ipv4');
  return (address) => {
    const bare = address.replace(/^\[(.*)\]$/, '$1');
    const family = isIP(bare);
    if (family === 4) return publicV4(bare);
    // A zone (fe80::1%eth0) names a link: link-local by nature.
    if (family !== 6 || bare.includes('%')) return false;
    const inside = carriedV4(ipv6Groups(bare));
    if (inside !== null) return publicV4(inside);
    return global.check(bare, 'ipv6') && !v6.check(bare, 'ipv6');
  };
}
