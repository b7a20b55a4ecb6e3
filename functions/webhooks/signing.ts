/**
 * Webhook signatures, two schemes on every delivery (docs/webhooks.md):
 *
 * - DESIGN 6.6 (spec, Authentication 3): `X-Webhook-Signature` is the lowercase hex
 *   HMAC-SHA256 of the raw request body, keyed with the endpoint's secret (the whole secret
 *   string, `whsec_...`, as UTF-8 bytes): exactly one hex string, always, signed with the
 *   newest secret (DESIGN 10.3: a receiver written to 6.6 compares one value).
 * - Standard Webhooks (DESIGN 8.2, standardwebhooks.com): `webhook-id`, `webhook-timestamp`
 *   and `webhook-signature` = space-separated `v1,<base64 HMAC-SHA256(key,
 *   "<id>.<timestamp>.<raw body>")>`, key = the base64-decoded part of the secret after
 *   `whsec_`; one value per secret in use, as that specification says: during a rotation
 *   overlap the new secret's, then the old one's. The timestamp is signed, so a receiver can
 *   refuse a replayed old delivery.
 *
 * A receiver accepts the request when its value (any listed value, for `webhook-signature`) matches.
 */
import { timingSafeEqual } from 'node:crypto';
// The primitives are the SDK's (one implementation: what the service signs is what the SDK and `idpay listen` sign and verify).
import { SECRET_PREFIX, newWebhookSecret, signLegacy, signStandard, signatureHeaders, standardKey } from '../../sdk/src/signing';

export { SECRET_PREFIX, signStandard, standardKey };

/** A new endpoint secret: `whsec_` + 40 base62 characters (~238 bits). */
export const newSecret = newWebhookSecret;

export const sign = signLegacy;

export interface SigningSecrets {
  current: string;
  /** The secret replaced by the last rotation, valid until `previousExpiresAt`. */
  previous?: string;
  previousExpiresAt?: string;
}

/** The secrets that sign an attempt at `nowMs`: the current one, then the previous one during its overlap. */
export function validSecrets(secrets: SigningSecrets, nowMs: number): string[] {
  const valid = [secrets.current];
  if (secrets.previous && secrets.previousExpiresAt && Date.parse(secrets.previousExpiresAt) > nowMs) valid.push(secrets.previous);
  return valid;
}

/** The `X-Webhook-Signature` value: one hex HMAC, the newest secret's (DESIGN 6.6, 10.3). */
export function signatureHeader(rawBody: string, secrets: Pick<SigningSecrets, 'current'>): string {
  return sign(secrets.current, rawBody);
}

/** The headers whose values are signatures: shown as `<redacted>` (DESIGN 9.3). */
export const SIGNATURE_HEADERS = ['X-Webhook-Signature', 'webhook-signature'] as const;
export const REDACTED = '<redacted>';

/**
 * Every header of one attempt's request: the content type, the user agent and the signing
 * headers. With `secrets` null (showing a stored attempt), the signatures read `<redacted>`:
 * everything else is what was sent, rebuilt from the event and the attempt's time.
 */
export function attemptHeaders(eventId: string, rawBody: string, secrets: SigningSecrets | null, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'idpay-webhooks/1.0',
    ...webhookHeaders(eventId, rawBody, secrets ?? { current: '' }, nowMs),
  };
  if (secrets === null) for (const h of SIGNATURE_HEADERS) headers[h] = REDACTED;
  return headers;
}

/**
 * Every signing header of one attempt at `nowMs` of event `eventId` with body `rawBody`:
 * 6.6's three and Standard Webhooks' three (the same id and timestamp under both names).
 */
export function webhookHeaders(eventId: string, rawBody: string, secrets: SigningSecrets, nowMs: number): Record<string, string> {
  // validSecrets starts with the current secret: the one X-Webhook-Signature is signed with (signatureHeader).
  return signatureHeaders(eventId, rawBody, validSecrets(secrets, nowMs), nowMs);
}

/** What a receiver does (docs/webhooks.md): does the header (any comma-separated value, as receivers written before release 4 check) match `secret`? */
export function verifySignature(header: string | undefined, rawBody: string, secret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(sign(secret, rawBody), 'hex');
  return header.split(',').some((v) => {
    const got = Buffer.from(v.trim(), 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
