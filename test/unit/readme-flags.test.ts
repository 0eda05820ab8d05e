// The README's flag table names every flag of the server's usage with its environment variable, and each
// variable it names is one the server really reads.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseServeOptions, SERVE_USAGE } from '../../src/cli/serve-flags.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const flagsAt = readme.indexOf('### Flags');
const flagTable = readme.slice(flagsAt, readme.indexOf('\n#', flagsAt + 1));
const rows = new Map(
  [...flagTable.matchAll(/^\| `--([a-z-]+)[^`]*` \| `(INVOICING_MCP_[A-Z_]+)` \|/gm)].map((m) => [m[1] as string, m[2] as string]),
);
const usageFlags = [...new Set([...SERVE_USAGE.matchAll(/--([a-z][a-z-]+)/g)].map((m) => m[1] as string))];

// A value for each flag's variable that differs from the default.
const SAMPLE: Record<string, string> = {
  http: '1',
  port: '9000',
  host: '127.0.0.2',
  'http-token': 'a-token-of-twenty-chars',
  'allowed-hosts': 'mcp.example.com',
  'allowed-origins': 'app.example.com',
  'trust-proxy': '10.0.0.0/8',
  'read-only': 'true',
  toolsets: 'invoices',
  'confirm-writes': 'yes',
  'log-level': 'debug',
  'webhook-port': '8787',
  'webhook-host': '0.0.0.0',
  'headers-timeout': '5',
  'request-timeout': '30',
  'idle-timeout': '10',
  'max-connections': '64',
  'max-sessions': '50',
  'max-sessions-per-client': '20',
  'max-streams-per-client': '8',
  'session-idle-timeout': '15',
  'stream-lifetime': '120',
  'drain-timeout': '3',
  mirror: '/tmp/books.db',
  businesses: '/etc/invoicing-mcp/businesses.json',
  'max-concurrency': '16',
  'retry-budget': '5',
  hosted: '1',
  'public-url': 'https://books.example.com/mcp',
  'oauth-clients': '/etc/invoicing-mcp/clients.json',
  'grant-rate-limit': '120',
  'tenant-idle-minutes': '5',
  'service-sign-ins': '30',
  'client-id-documents': 'off',
  'registrations-per-hour': '60',
};

describe("the README's flags", () => {
  it('list every flag of the usage, and no other', () => {
    expect(usageFlags.length).toBeGreaterThan(5);
    expect([...rows.keys()].sort()).toEqual([...usageFlags].sort());
  });

  it.each(usageFlags)('--%s: the variable the README names changes what the server does', (flag) => {
    const variable = rows.get(flag);
    expect(variable).toBe(`INVOICING_MCP_${flag.toUpperCase().replace(/-/g, '_')}`);
    expect(SAMPLE[flag], `add a sample value for --${flag}`).toBeDefined();
    expect(parseServeOptions([], { [variable as string]: SAMPLE[flag] })).not.toEqual(parseServeOptions([], {}));
  });
});
