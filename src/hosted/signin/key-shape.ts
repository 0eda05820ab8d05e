// What a Key ID and Secret must look like before the service is asked: `svck_<mode>_` with `svc_<mode>_` of
// the same mode, each followed by URL-safe random characters (letters, digits, - and _). Anything else is
// refused in words that name what is wrong (a character by its position and code point, never the character
// itself), and a Key ID that is not of that alphabet is not shown again in its field.
const KEY_ID = /^svck_(live|test)_[A-Za-z0-9_-]+$/;
const URL_SAFE = /^[A-Za-z0-9_-]$/;
/** Longer than any key ID or secret of the service (24 and 40 characters after the prefix); past it, a paste gone wrong. */
export const KEY_FIELD_MAX = 200;

const NOT_A_KEY =
  'That is not a key of the Invoicing Service: a key ID starts with svck_live_ or svck_test_, and its secret with svc_live_ or svc_test_, of the same mode.';

/** What kind of character it is, in words a person can act on. */
function kindOf(char: string): string {
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(char)) return 'an invisible control or formatting character';
  if (/\s/u.test(char)) return 'a space';
  if (/[\p{L}\p{N}]/u.test(char)) return 'a letter or digit from outside plain ASCII (one that may look like another)';
  return 'a sign that is not - or _';
}

/** The first character that cannot be in a key ID or secret, as words: its position and code point. */
function firstStrange(text: string): string | null {
  let position = 0;
  for (const char of text) {
    position++;
    if (URL_SAFE.test(char)) continue;
    const code = (char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
    return `character ${position} is U+${code}, ${kindOf(char)}`;
  }
  return null;
}

/** Whether the Key ID may be shown back in its field: one that cannot be a key ID is not echoed. */
export const showable = (keyId: string): boolean => keyId.length <= KEY_FIELD_MAX && firstStrange(keyId) === null;

/** Why this pair cannot be a key of the service, or null when it may be one (the service then decides). */
export function shapeProblem(keyId: string, secret: string): string | null {
  for (const [field, value] of [
    ['key ID', keyId],
    ['secret', secret],
  ] as const) {
    if (value.length > KEY_FIELD_MAX)
      return `That ${field} is ${value.length} characters long; the service's are far shorter. Paste it again from the service's console.`;
    const strange = firstStrange(value);
    if (strange !== null)
      return `That ${field} cannot be one of the service's: its ${strange}. Key IDs and secrets are plain letters, digits, - and _ only. Paste it again from the service's console.`;
  }
  const mode = KEY_ID.exec(keyId)?.[1];
  if (mode === undefined || !secret.startsWith(`svc_${mode}_`)) return NOT_A_KEY;
  return null;
}
