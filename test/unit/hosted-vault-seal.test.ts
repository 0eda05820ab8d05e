// The vault's keys and seal (src/hosted/vault): AES-256-GCM under INVOICING_MCP_VAULT_KEY, the key named in
// what it sealed, an older key still opening after a rotation, the context bound in, and no key in an error.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Sealer } from '../../src/hosted/vault/sealer.js';
import { readVaultKeys } from '../../src/hosted/vault/vault-keys.js';

const newKey = (): string => randomBytes(32).toString('base64');

describe('the vault key', () => {
  it('is refused when absent, or not 32 bytes of base64, naming the variable and never the value', () => {
    expect(() => readVaultKeys(undefined)).toThrow(/INVOICING_MCP_VAULT_KEY is not set/);
    expect(() => readVaultKeys('  ')).toThrow(/INVOICING_MCP_VAULT_KEY is not set/);
    const short = randomBytes(16).toString('base64');
    expect(() => readVaultKeys(short)).toThrow(/INVOICING_MCP_VAULT_KEY: key 1 is not 32 bytes/);
    const good = newKey();
    try {
      readVaultKeys(`${good},${short}`);
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/key 2 is not 32 bytes/);
      expect((err as Error).message).not.toContain(short);
      expect((err as Error).message).not.toContain(good);
    }
  });

  it('takes several keys, the first one sealing; base64url is read too', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const keys = readVaultKeys(`${a.toString('base64url')}, ${b.toString('base64')}`);
    expect(keys.all.map((k) => k.bytes)).toEqual([a, b]);
    expect(keys.current.bytes).toEqual(a);
    expect(keys.current.id).not.toBe(keys.all[1]?.id);
  });
});

describe('the seal', () => {
  it('opens what it sealed, in its context only, and shows nothing of the secret', () => {
    const sealer = new Sealer(readVaultKeys(newKey()));
    const secret = 'svc_live_abcdefghijklmnopqrstuvwxyz0123456789';
    const sealed = sealer.seal(secret, 'secret:one');
    expect(sealed).not.toContain(secret);
    expect(sealed).toMatch(/^v1\.[\w-]{12}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealer.seal(secret, 'secret:one')).not.toBe(sealed);
    expect(sealer.openText(sealed, 'secret:one')).toEqual({ text: secret, stale: false });
    expect(() => sealer.open(sealed, 'secret:two')).toThrow(/does not open/);
    const [v, id, iv, body, tag] = sealed.split('.') as string[];
    const flipped = Buffer.from(body as string, 'base64url');
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(() => sealer.open([v, id, iv, flipped.toString('base64url'), tag].join('.'), 'secret:one')).toThrow(/altered/);
    expect(() => sealer.open('plain text', 'secret:one')).toThrow(/not in the vault format/);
  });

  it('opens after a rotation with the old key given second, saying it is stale; without it, says which key is missing', () => {
    const [oldKey, newOne] = [newKey(), newKey()];
    const before = new Sealer(readVaultKeys(oldKey));
    const sealed = before.seal('whsec_0123456789', 'secret:hook');
    const after = new Sealer(readVaultKeys(`${newOne},${oldKey}`));
    expect(after.openText(sealed, 'secret:hook')).toEqual({ text: 'whsec_0123456789', stale: true });
    expect(after.openText(after.seal('x', 'c'), 'c').stale).toBe(false);
    const lost = new Sealer(readVaultKeys(newOne));
    expect(() => lost.open(sealed, 'secret:hook')).toThrow(
      new RegExp(`vault key ${before.currentKeyId}, which this process was not given`),
    );
  });
});
