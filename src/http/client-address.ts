// Who a request comes from, for every per-client limit: the socket's address, or, behind the proxies named
// by --trust-proxy, the address the nearest untrusted hop reached them from (X-Forwarded-For read from the
// right, past every trusted proxy). An X-Forwarded-For from anyone else is the client's own words: ignored.
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The client address of a request, by the rule above. */
export type ClientAddress = (req: IncomingMessage) => string;

const STAMP = Symbol('invoicing-mcp client address');
type Stamped = IncomingMessage & { [STAMP]?: string };

/** IPv4 written as IPv6 (`::ffff:10.0.0.1`, how a dual-stack socket reports it) is the IPv4 address. */
const plain = (address: string): string => (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address);

/** An X-Forwarded-For entry's address (a port or brackets some proxies add, dropped); null when not one. */
function entryAddress(entry: string): string | null {
  const text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  const candidate = bracketed ? (bracketed[1] as string) : isIP(text) ? text : text.replace(/:\d+$/, '');
  return isIP(candidate) ? plain(candidate) : null;
}

/** What is wrong with one --trust-proxy entry (an address, or a range written address/bits), or null. */
export function proxyEntryProblem(entry: string): string | null {
  const [address = '', bits, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return `"${entry}" is not an IP address or a range such as 10.0.0.0/8`;
  if (bits !== undefined && (!/^\d+$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128))) {
    return `"${entry}" has a prefix length that is not from 0 to ${family === 4 ? 32 : 128}`;
  }
  return null;
}

function trustedList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(plain(address), isIP(plain(address)) === 4 ? 'ipv4' : type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

const socketOf = (req: IncomingMessage): string => plain(req.socket.remoteAddress ?? '');

/** Whether an address is one of the proxies `trusted` names. */
function trustedAddress(trusted: readonly string[]): (address: string) => boolean {
  const list = trustedList(trusted);
  return (address) => isIP(address) !== 0 && list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Whether a request came straight from one of the proxies `trusted` names: only then are its forwarded headers read. */
export function fromTrustedProxy(trusted: readonly string[]): (req: IncomingMessage) => boolean {
  if (trusted.length === 0) return () => false;
  const isTrusted = trustedAddress(trusted);
  return (req) => isTrusted(socketOf(req));
}

/** The rule for a deployment behind the proxies `trusted` names (none: the socket's address). */
export function clientAddressOf(trusted: readonly string[]): ClientAddress {
  if (trusted.length === 0) return socketOf;
  const isTrusted = trustedAddress(trusted);
  return (req) => {
    let client = socketOf(req);
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').filter((h) => h.trim() !== '');
    while (client !== '' && isTrusted(client) && hops.length > 0) {
      const next = entryAddress(hops.pop() as string);
      // A trusted proxy writes a real address; anything else is counted as that proxy's.
      if (next === null) break;
      client = next;
    }
    return client;
  };
}

/** Keeps a request's client address on it, worked out once as it arrives. */
export function stampClient(req: IncomingMessage, address: string): void {
  (req as Stamped)[STAMP] = address;
}

/** The client address kept on the request, if it was. */
export const stampedClient = (req: IncomingMessage): string | undefined => (req as Stamped)[STAMP];
