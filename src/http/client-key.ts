// What counts as one client for a per-client limit. An IPv4 address is one client; an IPv6 address is one of
// the 2^64 of its /64, which one host is usually given whole: counted by address, one host could take any
// share again from each new address of its own.
import { isIP } from 'node:net';

/** The 16-bit groups of an IPv6 address, its `::` filled in and a trailing dotted IPv4 as two groups. */
function groupsOf(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const part = (text: string): string[] => {
    if (text === '') return [];
    const groups = text.split(':');
    const last = groups[groups.length - 1] as string;
    if (!last.includes('.')) return groups;
    const [a = 0, b = 0, c = 0, d = 0] = last.split('.').map(Number);
    return [...groups.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  };
  const left = part(head);
  if (tail === undefined) return left;
  const right = part(tail);
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}

/** The client an address counts as: an IPv4 address (written plain or as `::ffff:` IPv6) itself, an IPv6 one its /64. */
export function clientKey(address: string): string {
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  if (isIP(address) !== 6) return address;
  const prefix = groupsOf(address.split('%')[0] as string)
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
