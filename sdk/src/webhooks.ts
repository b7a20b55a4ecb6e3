/**
 * verifyWebhook: checks a delivery under either of the two signature schemes every delivery
 * carries, and returns the event typed from the `webhooks` section of the OpenAPI document.
 *
 * - Standard Webhooks (preferred whenever `webhook-signature` is present): `webhook-signature`
 *   holds space-separated `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw
 *   body>")>` values, key = the base64-decoded part of the secret after `whsec_`. The
 *   timestamp is signed.
 * - idpay's original scheme: `X-Webhook-Signature` holds comma-separated lowercase hex
 *   HMAC-SHA256(secret as UTF-8, raw body) values; `X-Webhook-Timestamp` is checked against
 *   the tolerance but is not covered by the signature; `X-Webhook-Id` is the event id.
 *
 * When `webhook-signature` is present it decides: a delivery whose Standard Webhooks
 * signature fails is refused even if its `X-Webhook-Signature` matches (otherwise a replayed
 * old body with a rewritten timestamp would pass). `allowLegacy: false` refuses deliveries
 * that carry only the `X-Webhook-*` headers.
 *
 * Comparisons are constant time. A rotation overlap sends one value per valid secret; the
 * delivery is accepted when any value matches any secret given.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { webhooks } from './generated/openapi.js';
import { standardKey } from './signing.js';

type EventOf<K extends keyof webhooks> =
  NonNullable<webhooks[K]['post']> extends { requestBody: { content: { 'application/json': infer E } } } ? E : never;

/** Every event a webhook endpoint can receive: a union discriminated by `type`. */
export type WebhookEvent = { [K in keyof webhooks]: EventOf<K> }[keyof webhooks];
/** The event type names (`billing.intent`, `billing.response`, ...). */
export type WebhookEventType = WebhookEvent['type'];
/** The event of one type, e.g. `WebhookEventOf<'billing.response'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;

export type WebhookVerificationErrorCode =
  | 'invalid_secret'
  | 'invalid_body'
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_payload';

/** Thrown by verifyWebhook; `code` says why. Answer the delivery with a 4xx (e.g. 400 or 401). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A fetch `Headers`, or a plain object such as node:http's `req.headers` (any case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the delivery's timestamp and now, either way. Default 300. */
  toleranceSeconds?: number;
  /** Accept deliveries that carry only the original scheme's `X-Webhook-Signature`. Default true. */
  allowLegacy?: boolean;
  /** "Now" for the timestamp check (tests). Default: the clock. */
  now?: Date | number;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    const h = headers as Headers;
    return (name) => h.get(name) ?? undefined;
  }
  const lower = new Map<string, string>();
  for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (v === undefined) continue;
    lower.set(k.toLowerCase(), typeof v === 'string' ? v : v.join(','));
  }
  return (name) => lower.get(name);
}

function bodyBytes(rawBody: unknown): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new WebhookVerificationError('invalid_body', 'rawBody must be the raw request body (a string or bytes), before any JSON parsing');
}

function checkTimestamp(value: string | undefined, toleranceSeconds: number, nowMs: number): void {
  if (value === undefined) throw new WebhookVerificationError('missing_headers', 'Missing webhook timestamp header');
  if (!/^\d{1,12}$/.test(value.trim())) throw new WebhookVerificationError('invalid_timestamp', 'Invalid webhook timestamp');
  const age = Math.floor(nowMs / 1000) - Number(value.trim());
  if (age > toleranceSeconds) throw new WebhookVerificationError('timestamp_too_old', 'Webhook timestamp too old');
  if (-age > toleranceSeconds) throw new WebhookVerificationError('timestamp_too_new', 'Webhook timestamp too new');
}

const matchesAny = (expected: Buffer, candidates: Buffer[]) =>
  // every candidate is compared (no early exit), each in constant time
  candidates.reduce((found, got) => (got.length === expected.length && timingSafeEqual(got, expected)) || found, false);

function standardSignatures(header: string): Buffer[] {
  return header
    .split(' ')
    .map((v) => v.trim())
    .filter((v) => v.startsWith('v1,'))
    .map((v) => Buffer.from(v.slice(3), 'base64'));
}

function legacySignatures(header: string): Buffer[] {
  return header
    .split(',')
    .map((v) => v.trim())
    .filter((v) => HEX_SHA256.test(v))
    .map((v) => Buffer.from(v, 'hex'));
}

/**
 * Verify a webhook delivery and return its event. Pass the raw body exactly as received
 * (before JSON parsing), the request headers, and the endpoint secret (`whsec_...`; during
 * your own rollout of a rotated secret you may pass both). Throws WebhookVerificationError.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (!secrets.length || secrets.some((s) => typeof s !== 'string' || standardKey(s).length === 0)) {
    throw new WebhookVerificationError('invalid_secret', 'A webhook secret (whsec_...) is required');
  }
  const body = bodyBytes(rawBody);
  const header = headerReader(headers);
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();

  const standard = header('webhook-signature');
  const legacy = header('x-webhook-signature');
  let ok: boolean;
  if (standard !== undefined) {
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    if (id === undefined || timestamp === undefined)
      throw new WebhookVerificationError('missing_headers', 'Missing webhook-id or webhook-timestamp header');
    checkTimestamp(timestamp, tolerance, nowMs);
    const candidates = standardSignatures(standard);
    const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
    ok = secrets.reduce((found, s) => matchesAny(createHmac('sha256', standardKey(s)).update(signed).digest(), candidates) || found, false);
  } else if (legacy !== undefined && options.allowLegacy !== false) {
    checkTimestamp(header('x-webhook-timestamp'), tolerance, nowMs);
    const candidates = legacySignatures(legacy);
    ok = secrets.reduce(
      (found, s) => matchesAny(createHmac('sha256', Buffer.from(s, 'utf8')).update(body).digest(), candidates) || found,
      false,
    );
  } else {
    throw new WebhookVerificationError('missing_headers', 'Missing webhook signature headers');
  }
  if (!ok) throw new WebhookVerificationError('invalid_signature', 'No matching webhook signature');

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'Webhook body is not JSON');
  }
  const e = event as Record<string, unknown> | null;
  if (
    !e ||
    typeof e !== 'object' ||
    typeof e.id !== 'string' ||
    typeof e.type !== 'string' ||
    typeof e.createdAt !== 'string' ||
    !e.data ||
    typeof e.data !== 'object'
  ) {
    throw new WebhookVerificationError('invalid_payload', 'Webhook body is not an event {id, type, createdAt, data}');
  }
  return event as WebhookEvent;
}
