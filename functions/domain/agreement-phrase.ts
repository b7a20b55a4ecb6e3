/**
 * Agreement phrases (spec rule 1, DESIGN 6.5): the string a merchant bills with. It is an
 * authenticated-encrypted token (AES-256-GCM, key `purposeKey('agreement-phrase')`, derived
 * from the configured master secret, never in code) naming ONE decision of ONE merchant:
 *
 *   ap_<base64url(iv | tag | ciphertext of {"d": decisionId, "m": merchantId, "v": 1})>
 *
 * The additional authenticated data binds the token to its purpose, its version and its
 * merchant (`agreement-phrase:v1:<merchantId>`), so a phrase read on behalf of another
 * merchant fails authentication before its content is even looked at; the payload names the
 * merchant again and both must agree. The phrase is issued once, when the decision is first
 * created, and never changes: it always means the decision's CURRENT state (DESIGN 6.9).
 */
import { open, purposeKey, seal } from './secrets';

export const AGREEMENT_PHRASE_PREFIX = 'ap_';
const PURPOSE = 'agreement-phrase';
const VERSION = 1;
/** Real phrases are ~130 characters; anything far longer is not one of ours (no work spent on it). */
const MAX_LENGTH = 512;
const DECISION_ID = /^dec_[0-9A-Za-z]{1,40}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const aad = (merchantId: string) => `${PURPOSE}:v${VERSION}:${merchantId}`;

/** A new agreement phrase for the decision `decisionId` of merchant `merchantId`. */
export async function issueAgreementPhrase(decisionId: string, merchantId: string): Promise<string> {
  const key = await purposeKey(PURPOSE);
  const payload = JSON.stringify({ d: decisionId, m: merchantId, v: VERSION });
  return AGREEMENT_PHRASE_PREFIX + seal(key, payload, aad(merchantId));
}

/**
 * The decision id the phrase names, when the phrase is genuine AND belongs to `merchantId`;
 * otherwise undefined (tampered, truncated, sealed with another key, wrong prefix, garbage,
 * or another merchant's phrase). Never throws for bad input.
 */
export async function readAgreementPhrase(phrase: unknown, merchantId: string): Promise<string | undefined> {
  if (typeof phrase !== 'string' || !merchantId) return undefined;
  if (phrase.length > MAX_LENGTH || !phrase.startsWith(AGREEMENT_PHRASE_PREFIX)) return undefined;
  const body = phrase.slice(AGREEMENT_PHRASE_PREFIX.length);
  if (!BASE64URL.test(body)) return undefined;
  // Only the canonical encoding: base64url's last character may carry unused bits, and a
  // phrase that differs from the issued one in any character is refused, not decoded alike.
  if (Buffer.from(body, 'base64url').toString('base64url') !== body) return undefined;
  const plain = open(await purposeKey(PURPOSE), body, aad(merchantId));
  if (!plain) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(plain.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const { d, m, v } = parsed as { d?: unknown; m?: unknown; v?: unknown };
  if (v !== VERSION || m !== merchantId || typeof d !== 'string' || !DECISION_ID.test(d)) return undefined;
  return d;
}
