/**
 * Webhook signatures (spec, Authentication 3; DESIGN 6.6): `X-Webhook-Signature` is the
 * lowercase hex HMAC-SHA256 of the raw request body, keyed with the endpoint's secret (the
 * whole secret string, `whsec_...`, as UTF-8 bytes).
 *
 * During a rotation overlap the header carries one signature per valid secret, comma
 * separated, the current secret's first: `<hex(new)>,<hex(old)>`. Outside an overlap it is
 * exactly one hex string. A receiver accepts the request when any listed value matches.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../domain/ids';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + 40 base62 characters (~238 bits). */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomToken(40)}`;
}

export function sign(secret: string, rawBody: string): string {
  return createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
}

export interface SigningSecrets {
  current: string;
  /** The secret replaced by the last rotation, valid until `previousExpiresAt`. */
  previous?: string;
  previousExpiresAt?: string;
}

/** The header value for one attempt at `nowMs`. */
export function signatureHeader(rawBody: string, secrets: SigningSecrets, nowMs: number): string {
  const values = [sign(secrets.current, rawBody)];
  if (secrets.previous && secrets.previousExpiresAt && Date.parse(secrets.previousExpiresAt) > nowMs) {
    values.push(sign(secrets.previous, rawBody));
  }
  return values.join(',');
}

/** What a receiver does (docs/webhooks.md): does any value of the header match `secret`? */
export function verifySignature(header: string | undefined, rawBody: string, secret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(sign(secret, rawBody), 'hex');
  return header.split(',').some((v) => {
    const got = Buffer.from(v.trim(), 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
