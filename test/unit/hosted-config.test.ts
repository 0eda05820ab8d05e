// Hosted mode's settings (src/cli/hosted-config.ts, serve-flags.ts): --hosted refuses to start without what
// it needs, naming it, and refuses what belongs to the desktop paths.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadHostedConfig } from '../../src/cli/hosted-config.js';
import { parseServeOptions } from '../../src/cli/serve-flags.js';
import { ConfigError } from '../../src/cli/service-env.js';

const VAULT = randomBytes(32).toString('base64');
const GOOD_ENV = { SVC_BASE_URL: 'https://invoicing.example.com', INVOICING_MCP_VAULT_KEY: VAULT };
const GOOD_ARGS = ['--hosted', '--public-url', 'https://books.example.com/mcp', '--mirror', 'postgres://u:p@db:5432/books'];

function refusal(args: string[], env: Record<string, string>): { setting: string; message: string } {
  try {
    loadHostedConfig(parseServeOptions(args, env), env);
  } catch (err) {
    if (err instanceof ConfigError) return { setting: err.setting, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

const without = (flag: string): string[] => {
  const i = GOOD_ARGS.indexOf(flag);
  return [...GOOD_ARGS.slice(0, i), ...GOOD_ARGS.slice(i + 2)];
};

describe('hosted mode settings', () => {
  it('takes what it needs: HTTP, the canonical public URL, Postgres, the service and the vault key', () => {
    const options = parseServeOptions(GOOD_ARGS, GOOD_ENV);
    expect(options.transport).toBe('http');
    const config = loadHostedConfig(options, GOOD_ENV);
    expect(config).toMatchObject({
      resource: 'https://books.example.com/mcp',
      serviceUrl: 'https://invoicing.example.com',
      clientsFile: null,
    });
    expect(JSON.stringify(config)).not.toContain('u:p@');
    expect(Object.keys(config)).not.toContain('secret');
    // Beyond loopback it needs no --http-token: people sign in.
    expect(parseServeOptions([...GOOD_ARGS, '--host', '0.0.0.0'], GOOD_ENV).host).toBe('0.0.0.0');
    expect(
      loadHostedConfig(
        parseServeOptions(
          GOOD_ARGS.map((a) => a.replace('books.example.com/mcp', 'Books.Example.com/mcp/')),
          GOOD_ENV,
        ),
        GOOD_ENV,
      ).resource,
    ).toBe('https://books.example.com/mcp');
  });

  it.each([
    [without('--public-url'), GOOD_ENV, '--public-url', /--hosted needs --public-url/],
    [without('--mirror'), GOOD_ENV, '--mirror', /set --mirror postgres:/],
    [[...without('--mirror'), '--mirror', '/tmp/books.db'], GOOD_ENV, '--mirror', /Postgres/],
    [GOOD_ARGS, { SVC_BASE_URL: GOOD_ENV.SVC_BASE_URL }, 'INVOICING_MCP_VAULT_KEY', /INVOICING_MCP_VAULT_KEY is not set/],
    [GOOD_ARGS, { ...GOOD_ENV, INVOICING_MCP_VAULT_KEY: 'short' }, 'INVOICING_MCP_VAULT_KEY', /not 32 bytes/],
    [GOOD_ARGS, { INVOICING_MCP_VAULT_KEY: VAULT }, 'SVC_BASE_URL', /SVC_BASE_URL is not set/],
    [GOOD_ARGS, { ...GOOD_ENV, SVC_KEY_ID: 'svck_live_x' }, 'SVC_KEY_ID', /each business signs in with its own key/],
    [GOOD_ARGS, { ...GOOD_ENV, SVC_SECRET: 'svc_live_x' }, 'SVC_SECRET', /unset SVC_SECRET/],
    [[...without('--public-url'), '--public-url', 'https://books.example.com/api'], GOOD_ENV, '--public-url', /ending in \/mcp/],
    [[...without('--public-url'), '--public-url', 'http://books.example.com/mcp'], GOOD_ENV, '--public-url', /must use https/],
  ])('refuses a missing or wrong setting, naming it (case %#)', (args, env, setting, words) => {
    const refused = refusal(args as string[], env as Record<string, string>);
    expect(refused.setting).toBe(setting);
    expect(refused.message).toMatch(words as RegExp);
    expect(refused.message).not.toContain(VAULT);
  });

  it('refuses --http-token with --hosted, and hosted flags without --hosted', () => {
    expect(() => parseServeOptions([...GOOD_ARGS, '--http-token', 'a-token-of-twenty-chars'], GOOD_ENV)).toThrow(
      /in hosted mode people sign in with OAuth/,
    );
    expect(() => parseServeOptions(['--http', '--public-url', 'https://books.example.com/mcp'], {})).toThrow(
      /--public-url is for hosted mode/,
    );
    expect(parseServeOptions(['--http'], {}).hosted).toBe(false);
  });
});
