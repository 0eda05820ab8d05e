// server.json, the MCP registry entry, against package.json, the server and the service settings, and
// against what the 2025-12-11 server.json schema requires (checked field by field: the schema cannot be
// fetched here, so its required fields, patterns and lengths are restated below).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLL_SECONDS } from '../../src/books/books-mirror.js';
import { ServiceEnvSchema } from '../../src/cli/service-env.js';
import { SERVER_NAME, SERVER_VERSION } from '../../src/mcp/server.js';

const root = new URL('../../', import.meta.url);
const read = (file: string) => JSON.parse(readFileSync(new URL(file, root), 'utf8'));
const entry = read('server.json');
const pkg = read('package.json');

const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
// ServerDetail's properties, and those of an npm package (RegistryPackage over PackageBase).
const SERVER_FIELDS = [
  '$schema',
  '_meta',
  'name',
  'title',
  'description',
  'version',
  'icons',
  'packages',
  'remotes',
  'repository',
  'websiteUrl',
];
const PACKAGE_FIELDS = [
  'registryType',
  'registryBaseUrl',
  'identifier',
  'version',
  'fileSha256',
  'runtimeHint',
  'transport',
  'runtimeArguments',
  'packageArguments',
  'environmentVariables',
];
const INPUT_FIELDS = ['name', 'description', 'isRequired', 'isSecret', 'format', 'default', 'value', 'placeholder', 'choices', 'variables'];
const VERSION_RANGE = /[\^~<>=*\s]|(^|\.)[xX](\.|$)|^latest$/;
const SECRETS = ['SVC_SECRET', 'SVC_WEBHOOK_SECRET'];

describe('server.json', () => {
  it('has what the 2025-12-11 schema requires of a server, and nothing it does not know', () => {
    expect(entry.$schema).toBe(SCHEMA_URL);
    expect(Object.keys(entry).filter((k) => !SERVER_FIELDS.includes(k))).toEqual([]);
    expect(entry.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(entry.name.length).toBeGreaterThanOrEqual(3);
    expect(entry.name.length).toBeLessThanOrEqual(200);
    expect(entry.description.length).toBeGreaterThanOrEqual(1);
    expect(entry.description.length).toBeLessThanOrEqual(100);
    expect(entry.title.length).toBeLessThanOrEqual(100);
    expect(entry.version).not.toMatch(VERSION_RANGE);
  });

  it('is named as package.json mcpName (npm checks it) in reverse-DNS form', () => {
    expect(pkg.mcpName).toBe(entry.name);
    expect(entry.name).toMatch(/^io\.github\.[^/]+\/invoicing-mcp$/);
  });

  it('has the version of package.json and of the server, and ships in the npm package', () => {
    expect(entry.version).toBe(pkg.version);
    expect(SERVER_VERSION).toBe(pkg.version);
    expect(SERVER_NAME).toBe(pkg.name);
    expect(pkg.files).toContain('server.json');
  });

  it('names one npm package over stdio: this one, at this version', () => {
    expect(entry.packages).toHaveLength(1);
    const [npm] = entry.packages;
    expect(Object.keys(npm).filter((k: string) => !PACKAGE_FIELDS.includes(k))).toEqual([]);
    expect(npm).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } });
    expect(pkg.bin[npm.identifier]).toBeDefined();
  });

  it('lists exactly the service settings, none required (no keys: the sandbox), the secrets as secret', () => {
    const vars = entry.packages[0].environmentVariables as Array<Record<string, unknown>>;
    expect(vars.map((v) => v.name).sort()).toEqual(Object.keys(ServiceEnvSchema.shape).sort());
    for (const v of vars) {
      expect(
        Object.keys(v).filter((k) => !INPUT_FIELDS.includes(k)),
        String(v.name),
      ).toEqual([]);
      expect(typeof v.description === 'string' && v.description.length > 20, String(v.name)).toBe(true);
      expect(v.isRequired, String(v.name)).toBe(false);
      expect(v.isSecret, String(v.name)).toBe(SECRETS.includes(v.name as string));
    }
    expect(vars.find((v) => v.name === 'SVC_POLL_SECONDS')?.default).toBe(String(DEFAULT_POLL_SECONDS));
  });
});
