// What a Key ID and Secret must look like before the sign-in page asks the service (src/hosted/signin/key-shape.ts):
// each strange character named by its position and code point (an emoji's whole), never itself.
import { describe, expect, it } from 'vitest';
import { KEY_FIELD_MAX, shapeProblem, showable } from '../../src/hosted/signin/key-shape.js';

const SECRET = 'svc_live_0123456789abcdefghijABCDEFGHIJ-_0123456789';
const KEY_ID = 'svck_live_0123456789abcdefghij-_AB';

describe('the shape of a key', () => {
  it('lets a pair of the service through, of either mode', () => {
    expect(shapeProblem(KEY_ID, SECRET)).toBeNull();
    expect(shapeProblem('svck_test_abc', 'svc_test_def')).toBeNull();
    expect(showable(KEY_ID)).toBe(true);
  });

  it('refuses modes that differ, a missing prefix, an empty field', () => {
    for (const [keyId, secret] of [
      ['svck_test_abc', SECRET],
      ['svck_prod_abc', 'svc_prod_abc'],
      ['abc', SECRET],
      ['', SECRET],
      [KEY_ID, ''],
    ])
      expect(shapeProblem(keyId, secret), keyId).toMatch(/^That is not a key of the Invoicing Service/);
  });

  it.each([
    ['svck_live_ab\ncd', 13, '000A', 'an invisible control or formatting character'],
    ['svck_live_ab\u0000', 13, '0000', 'an invisible control or formatting character'],
    ['svck_live_\u202Eab', 11, '202E', 'an invisible control or formatting character'],
    ['svck_live_a\u2028', 12, '2028', 'an invisible control or formatting character'],
    ['svck_live_a b', 12, '0020', 'a space'],
    ['svck_live_a\u00A0b', 12, '00A0', 'a space'],
    ['svck_live_\u0441', 11, '0441', 'a letter or digit from outside plain ASCII'],
    ['svck_live_ab\u{1F600}', 13, '1F600', 'a sign that is not - or _'],
    ['svck_live_<b>', 11, '003C', 'a sign that is not - or _'],
  ])('names the first strange character of %j by position and code point, and does not echo it', (keyId, position, code, kind) => {
    const problem = shapeProblem(keyId, SECRET) ?? '';
    expect(problem).toContain(`its character ${position} is U+${code}, ${kind}`);
    expect(problem).toMatch(/^[\x20-\x7e]+$/);
    expect(showable(keyId)).toBe(false);
  });

  it('looks at the secret the same way, and never quotes it', () => {
    const problem = shapeProblem(KEY_ID, 'svc_live_abc\u200Bdef') ?? '';
    expect(problem).toBe(
      "That secret cannot be one of the service's: its character 13 is U+200B, an invisible control or formatting character. Key IDs and secrets are plain letters, digits, - and _ only. Paste it again from the service's console.",
    );
  });

  it(`refuses a field past ${KEY_FIELD_MAX} characters, saying how long it is`, () => {
    const long = `svck_live_${'a'.repeat(KEY_FIELD_MAX)}`;
    expect(shapeProblem(long, SECRET)).toBe(
      `That key ID is ${long.length} characters long; the service's are far shorter. Paste it again from the service's console.`,
    );
    expect(showable(long)).toBe(false);
  });
});
