/**
 * Signing a webhook delivery, as the service does and as `idpay listen` does for what it
 * forwards (Node only: node:crypto). Two schemes on every delivery:
 *
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` = space-separated
 *   `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`, key = the base64-decoded
 *   part of the secret after `whsec_`; one value per secret in use (a rotation overlap).
 * - idpay's original scheme: `X-Webhook-Id`, `X-Webhook-Timestamp` and `X-Webhook-Signature` =
 *   the lowercase hex HMAC-SHA256 of the raw body keyed with the whole secret string (one
 *   value: the newest secret's).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random base62 characters (unbiased: bytes of 248 and above are drawn again). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new signing secret: `whsec_` + 40 base62 characters (~238 bits). */
export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBase62(40)}`;

/** Standard Webhooks' HMAC key: the base64-decoded part of the secret after `whsec_`. */
export const standardKey = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/** The original scheme's signature: lowercase hex HMAC-SHA256(secret as UTF-8, raw body). */
export const signLegacy = (secret: string, rawBody: string): string => createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');

/** One Standard Webhooks signature: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`. */
export function signStandard(secret: string, webhookId: string, timestampSeconds: string, rawBody: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${webhookId}.${timestampSeconds}.${rawBody}`, 'utf8').digest('base64')}`;
}

/**
 * Every signing header of one delivery attempt at `nowMs`: the original scheme's three (signed
 * with `secrets[0]`, the newest) and Standard Webhooks' three (one signature per secret).
 */
export function signatureHeaders(eventId: string, rawBody: string, secrets: readonly string[], nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    'X-Webhook-Id': eventId,
    'X-Webhook-Timestamp': timestamp,
    'X-Webhook-Signature': signLegacy(secrets[0] ?? '', rawBody),
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((s) => signStandard(s, eventId, timestamp, rawBody)).join(' '),
  };
}
