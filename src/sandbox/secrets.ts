// Random credentials with the documented prefixes, and the hashes the sandbox keeps instead of them.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomToken(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length; i++) {
    const b = bytes[i % bytes.length] as number;
    // 248 = 4 × 62: drop the top of the byte range so every character is equally likely.
    if (b < 248) out += URL_SAFE[b % 62];
    if (i >= bytes.length - 1 && out.length < length) return out + randomToken(length - out.length);
  }
  return out;
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function sameSecret(given: string, expected: string): boolean {
  return sameHash(sha256(given), sha256(expected));
}
