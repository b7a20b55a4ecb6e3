/**
 * API key format (DESIGN 6.1, 8.1): `sk_<stage>_<body><check>`. The body is 40 base62
 * characters from a CSPRNG (238 bits, as before the checksum); the check is the CRC32 of
 * everything before it, in base62, left-padded to 6 characters. A key that fails its
 * checksum is refused without any DynamoDB request (functions/http/auth.ts), and a secret
 * scanner can tell a real key from a look-alike. Pure: no I/O.
 */
import { crc32 } from 'node:zlib';
import type { Stage } from '../config';
import { BASE62, randomToken } from './ids';

export const KEY_BODY_LENGTH = 40;
export const CHECK_LENGTH = 6;
/** Longest token authentication looks at (anything longer is refused as is). */
export const MAX_KEY_LENGTH = 200;

/** Non-negative integer in base62 (digits, A-Z, a-z), left-padded with '0' to `width`. */
export function toBase62(n: number, width: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`toBase62 takes a non-negative integer, got ${n}`);
  let out = '';
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}

/** The 6 check characters of `text`: CRC32 of its UTF-8 bytes in base62 (62^6 > 2^32). */
export const checksum = (text: string): string => toBase62(crc32(text), CHECK_LENGTH);

/** `text` followed by its check characters. */
export const withChecksum = (text: string): string => text + checksum(text);

/** True when the last 6 characters are the checksum of the rest. */
export function hasValidChecksum(token: string): boolean {
  if (token.length <= CHECK_LENGTH) return false;
  return checksum(token.slice(0, -CHECK_LENGTH)) === token.slice(-CHECK_LENGTH);
}

/** A new API key of `stage`, checksum included. */
export const newApiKeyToken = (stage: Stage): string => withChecksum(`sk_${stage}_${randomToken(KEY_BODY_LENGTH)}`);

/** A generated operator key (local runtime, demo, tests): `op_` + 40 base62 + checksum. */
export const newOperatorKey = (): string => withChecksum(`op_${randomToken(KEY_BODY_LENGTH)}`);

/**
 * Could `token` be a key of `stage` that we issued? Shape (`sk_<stage>_`, base62 body of at
 * least 20 characters, at most MAX_KEY_LENGTH in all) and checksum. Decided without I/O.
 */
export function isWellFormedApiKey(token: string, stage: Stage): boolean {
  const prefix = `sk_${stage}_`;
  if (!token.startsWith(prefix) || token.length > MAX_KEY_LENGTH) return false;
  return /^[A-Za-z0-9]{26,}$/.test(token.slice(prefix.length)) && hasValidChecksum(token);
}

/**
 * A participant's status on the operator's list (DESIGN 10.7): `active` while at least one of its
 * API keys works (`keyWorks`), `inactive` when none does.
 */
export const PARTICIPANT_STATUSES = ['active', 'inactive'] as const;
export type ParticipantStatus = (typeof PARTICIPANT_STATUSES)[number];

/** Whether a key works at `now` (ISO): not revoked, and not past its expiry (DESIGN 8.3; auth refuses it from that instant). */
export const keyWorks = (k: { revokedAt?: string; keyExpiresAt?: string }, now: string): boolean =>
  !k.revokedAt && (!k.keyExpiresAt || k.keyExpiresAt > now);
