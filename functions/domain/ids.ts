import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Base62 digits in value order (0-9, A-Z, a-z). */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string from a CSPRNG (rejection sampling keeps it unbiased). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * Identifiers: a type prefix and a time-ordered, random body (first 8 chars encode the
 * creation time in ms, so ids sort by creation), e.g. `mer_0Q8x1Zb3Kf9...`.
 */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36).padStart(9, '0')}${randomToken(14)}`;
}

/** When an id of `newId`'s shape was made (epoch ms, real time): its first 9 characters after the prefix. */
export const idTimeMs = (id: string): number => parseInt(id.slice(id.indexOf('_') + 1, id.indexOf('_') + 10), 36);

export const sha256Hex = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

export function safeEqualHex(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && ba.length > 0 && timingSafeEqual(ba, bb);
}
