// Opaque tokens drawn from the seeded generator, so portal links are the same on every run.
import type { Rng } from '../prng.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export function randomTokenFrom(rng: Rng, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[rng.int(0, ALPHABET.length - 1)];
  return out;
}
