// The HTTP server's guards as pure decisions: which Host and Origin a bind answers, which --http-token and
// limit flags are taken, and how deep a JSON body may nest.
import { describe, expect, it } from 'vitest';
import { parseServeOptions } from '../../src/cli/serve-flags.js';
import { hostGuard } from '../../src/http/host-guard.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/http/json-body.js';
import { NO_SCHEMA_COMPILERS } from '../../src/http/no-schema-compilers.js';

describe('the Host and Origin guard', () => {
  it.each(['127.0.0.1', '127.0.0.2', '127.1.2.3', '127.0.0.001', 'LOCALHOST', 'localhost', '::1'])(
    'bound to %s, refuses a rebinding Host and a foreign Origin',
    (host) => {
      const guard = hostGuard({ host, allowedHosts: [], allowedOrigins: [] });
      expect(guard.problem({ host: 'rebind.evil.example:8765' })).toMatch(/not served here/);
      expect(guard.problem({ host: 'rebind.evil.example' })).toMatch(/not served here/);
      expect(guard.problem({ host: undefined })).toMatch(/not served here/);
      expect(guard.problem({ host: '127.0.0.1:8765', origin: 'https://evil.example' })).toMatch(/Origin/);
      expect(guard.problem({ host: '127.0.0.1:8765', origin: 'null' })).toMatch(/Origin/);
      expect(guard.problem({ host: 'localhost:8765', origin: 'http://localhost:3000' })).toBeNull();
      expect(guard.problem({ host: '[::1]:8765' })).toBeNull();
      expect(guard.problem({ host: `${host.includes(':') ? `[${host}]` : host}:8765` })).toBeNull();
    },
  );

  it('takes --allowed-hosts and --allowed-origins on loopback too', () => {
    const guard = hostGuard({
      host: '127.0.0.1',
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['app.example.com', 'moz-extension://*'],
    });
    expect(guard.problem({ host: 'MCP.example.com:443', origin: 'https://app.example.com' })).toBeNull();
    expect(guard.problem({ host: '127.0.0.1', origin: 'moz-extension://abcdef' })).toBeNull();
    expect(guard.problem({ host: 'other.example.com' })).not.toBeNull();
  });

  it('beyond loopback, checks Host only against --allowed-hosts, and refuses every Origin not listed', () => {
    const open = hostGuard({ host: '0.0.0.0', allowedHosts: [], allowedOrigins: [] });
    expect(open.problem({ host: 'mcp.example.com' })).toBeNull();
    expect(open.problem({ host: 'mcp.example.com', origin: 'http://localhost' })).toMatch(/Origin/);
    const listed = hostGuard({ host: '0.0.0.0', allowedHosts: ['mcp.example.com'], allowedOrigins: [] });
    expect(listed.problem({ host: 'localhost' })).toMatch(/not served here/);
  });
});

describe('--http-token', () => {
  it.each(['', '                    ', 'a token with spaces in it', 'tökén-with-non-ascii-chars', 'tab\there-0123456789abc', 'short'])(
    'refuses %j',
    (token) => {
      expect(() => parseServeOptions(['--http', '--http-token', token], {})).toThrow(
        /--http-token must be at least 16 printable ASCII characters without spaces/,
      );
    },
  );

  it('takes a long printable token', () => {
    expect(parseServeOptions(['--http', '--http-token', 'Abc-123_~!@#$%^&*()=+'], {}).httpToken).toBe('Abc-123_~!@#$%^&*()=+');
  });
});

describe('the HTTP limit flags', () => {
  it('default to figures a slow client passes', () => {
    const o = parseServeOptions(['--http'], {});
    expect(o.limits).toEqual({ headersTimeoutMs: 15_000, requestTimeoutMs: 60_000, idleTimeoutMs: 30_000, maxConnections: 512 });
    expect(o.maxSessions).toBe(1000);
    expect(o.sessionLimits).toEqual({
      maxSessionsPerClient: 500,
      maxStreamsPerClient: 128,
      sessionIdleMs: 60_000,
      streamLifetimeMs: 600_000,
    });
    expect(o.drainTimeoutMs).toBe(10_000);
  });

  it('take seconds (fractions too) and counts, from flags or variables', () => {
    const o = parseServeOptions(['--headers-timeout', '0.5', '--request-timeout', '2'], {
      INVOICING_MCP_MAX_CONNECTIONS: '64',
      INVOICING_MCP_MAX_SESSIONS: '10',
    });
    expect(o.limits).toMatchObject({ headersTimeoutMs: 500, requestTimeoutMs: 2000, maxConnections: 64 });
    expect(o.maxSessions).toBe(10);
  });

  it.each([
    [['--headers-timeout', '0'], /--headers-timeout must be a positive number of seconds/],
    [['--max-connections', '1.5'], /--max-connections must be a positive whole number/],
    [['--idle-timeout', 'soon'], /--idle-timeout must be a positive number of seconds/],
    [['--headers-timeout', '30', '--request-timeout', '10'], /--request-timeout must be at least --headers-timeout/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseServeOptions(argv, {})).toThrow(message);
  });
});

describe('JSON nesting', () => {
  const nest = (depth: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  it('is measured without recursion, to 100,000 levels', () => {
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestedDeeperThan(nest(100_000), MAX_JSON_DEPTH)).toBe(true);
    expect(nestedDeeperThan({ a: [1, 'x', null], b: { c: {} } }, 3)).toBe(false);
  });
});

describe('the fastify apps', () => {
  it('take no route schemas: one declared fails when the app starts, not silently unchecked', async () => {
    const { default: fastify } = await import('fastify');
    const app = fastify({ logger: false, schemaController: NO_SCHEMA_COMPILERS });
    app.post('/x', { schema: { body: { type: 'object' } } }, async () => ({}));
    await expect(app.ready()).rejects.toThrow(/check the input with zod/);
    await app.close();
  });
});
