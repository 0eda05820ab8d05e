// The hosts a request says a proxy forwarded it for (X-Forwarded-Host, and RFC 7239's Forwarded `host=`):
// read only from the proxies --trust-proxy names, and then only the host the deployment is public at.
import type { IncomingHttpHeaders } from 'node:http';

export interface ForwardedHost {
  header: 'X-Forwarded-Host' | 'Forwarded';
  value: string;
}

const joined = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(',') : (value ?? ''));

/** RFC 7239's `host=` parameters, a quoted string unquoted; elements and pairs split outside quotes. */
function forwardedParameterHosts(header: string): string[] {
  const hosts: string[] = [];
  for (const [, name = '', raw = ''] of header.matchAll(/([^=;,\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,]*)/g)) {
    if (name.toLowerCase() !== 'host') continue;
    hosts.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw.trim());
  }
  return hosts;
}

/** Every host a request's forwarded headers name, each with the header that named it. */
export function forwardedHosts(headers: IncomingHttpHeaders): ForwardedHost[] {
  const plain = joined(headers['x-forwarded-host'])
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  return [
    ...plain.map((value): ForwardedHost => ({ header: 'X-Forwarded-Host', value })),
    ...forwardedParameterHosts(joined(headers.forwarded)).map((value): ForwardedHost => ({ header: 'Forwarded', value })),
  ];
}

/** Whether a forwarded host names the public origin's host: its name, and its port if it gives one. */
function namesPublicHost(value: string, publicOrigin: URL): boolean {
  if (/[\s/?#@\\]/.test(value)) return false;
  let given: URL;
  try {
    given = new URL(`${publicOrigin.protocol}//${value}`);
  } catch {
    return false;
  }
  const portWritten = /:\d+$/.test(value);
  return given.hostname === publicOrigin.hostname && (!portWritten || given.port === publicOrigin.port);
}

/** Why a trusted proxy's forwarded host is refused (it names another host), or null. */
export function forwardedHostProblem(headers: IncomingHttpHeaders, publicOrigin: URL): string | null {
  const wrong = forwardedHosts(headers).find((f) => !namesPublicHost(f.value, publicOrigin));
  if (!wrong) return null;
  return `${wrong.header} ${JSON.stringify(wrong.value)} is not this deployment's public host (${publicOrigin.host}): the proxy must forward the host people reach it at, or clear the header`;
}
