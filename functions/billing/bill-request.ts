/**
 * The request side of `POST /v1/customer/bill` and `POST /v1/customer/pay` (DESIGN 6.5,
 * 6.9): whole-body validation, the per-phrase elements and their order, and the mapping of
 * refusals to element statuses and messages. The per-customer work is `createBilling`.
 */
import * as z from 'zod';
import { isSupportedCurrency } from '../domain/money';
import { amountSchema, currencySchema } from '../http/money-schemas';
import { toMajor } from '../domain/money';
import { MSG, badRequest, type ErrorMessage } from '../platform/errors';
import { logger } from '../platform/log';
import { arrayReply, failedElement, type ArrayElement } from '../http/multi-status';
import type { DeferredIdempotency } from '../http/endpoint';
import type { Reply } from '../http/types';
import { RiderRefused, type Rider } from '../platform/table';
import { nonEmpty } from '../http/schemas';
import type { BillItem } from '../bills/types';
import type { BillingRefusal, CreateBillingResult } from './create-billing';
import { BILLING_MSG } from './messages';

/** Most phrases in one bill or pay request. */
export const MAX_PHRASES = 100;
/** Phrases billed at once within one request (each is its own transaction). */
export const PHRASE_CONCURRENCY = 16;

const phrases = z
  .array(z.string().min(1, 'must not be empty').max(1000))
  .min(1, 'must list at least one phrase')
  .max(MAX_PHRASES, `must list at most ${MAX_PHRASES} phrases`);

export const billBodySchema = z.strictObject({
  agreementPhrases: phrases,
  amount: amountSchema,
  currency: currencySchema,
  description: nonEmpty(500),
});

export const payBodySchema = z.strictObject({
  lookupPhrases: phrases,
  amount: amountSchema,
  currency: currencySchema,
  description: nonEmpty(500),
});

/** 400 `Unsupported currency` for a well-formed code we do not process (DESIGN 6.9 Formats). */
export function assertSupportedCurrency(currency: string): void {
  if (!isSupportedCurrency(currency)) {
    throw badRequest(MSG.unsupportedCurrency, [{ path: 'currency', message: `${currency} is not supported; supported: NGN` }]);
  }
}

export type PhraseField = 'phrase' | 'lookupPhrase';

const REFUSAL: Record<BillingRefusal, { statusCode: 403 | 409; message: ErrorMessage<403> | ErrorMessage<409> }> = {
  merchant_blocked: { statusCode: 403, message: BILLING_MSG.merchantBlocked },
  not_approved: { statusCode: 403, message: BILLING_MSG.notApproved },
  limits: { statusCode: 403, message: BILLING_MSG.limitsExceeded },
  not_valid: { statusCode: 403, message: BILLING_MSG.approvalNotValid },
  no_payments_left: { statusCode: 403, message: BILLING_MSG.noPaymentsLeft },
  busy: { statusCode: 409, message: BILLING_MSG.busy },
};

export function refusalElement(field: PhraseField, phrase: string, entityId: string, refusal: BillingRefusal): ArrayElement {
  const r = REFUSAL[refusal];
  return failureElement(field, phrase, entityId, r.statusCode, r.message);
}

/** A refused element: the error's status, message, code and type, and the phrase it answers. */
export function failureElement(
  field: PhraseField,
  phrase: string,
  entityId: string,
  statusCode: number,
  message: ErrorMessage,
): ArrayElement {
  return { ...failedElement(statusCode, message), [field]: phrase, entityId };
}

export function createdElement(field: PhraseField, phrase: string, bill: BillItem, message: string): ArrayElement {
  return {
    statusCode: 201,
    success: true,
    message,
    reference: bill.reference,
    [field]: phrase,
    entityId: bill.merchantId,
    billingRequestId: bill.billingRequestId,
    amount: toMajor(bill.amount),
    currency: bill.currency,
    status: bill.status,
    requiresApproval: bill.requiresApproval,
    ...(bill.requiresApproval ? { expiresAt: bill.expiresAt ?? null } : {}),
  };
}

export function resultElement(field: PhraseField, phrase: string, entityId: string, r: CreateBillingResult, message: string): ArrayElement {
  return r.ok ? createdElement(field, phrase, r.bill, message) : refusalElement(field, phrase, entityId, r.refusal);
}

/**
 * Runs `one` for each DISTINCT phrase with bounded concurrency and returns the elements in
 * input order (a phrase listed twice is billed once; both positions show its element). An
 * unexpected error is that element's 500 (the other phrases' billings stand), never the
 * whole request's; an error `rethrow` picks ends the request instead (the caller answers it).
 */
export async function perPhrase(
  field: PhraseField,
  list: readonly string[],
  entityId: string,
  one: (phrase: string) => Promise<ArrayElement>,
  rethrow?: (error: unknown) => boolean,
): Promise<ArrayElement[]> {
  const distinct = [...new Set(list)];
  const byPhrase = new Map<string, ArrayElement>();
  let fatal: { error: unknown } | undefined;
  let next = 0;
  const worker = async () => {
    while (next < distinct.length) {
      const phrase = distinct[next++]!;
      try {
        byPhrase.set(phrase, await one(phrase));
      } catch (error) {
        if (rethrow?.(error)) {
          fatal ??= { error };
          continue;
        }
        logger.error('billing element failed', { merchantId: entityId, error: error as Error });
        byPhrase.set(phrase, failureElement(field, phrase, entityId, 500, MSG.internal));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PHRASE_CONCURRENCY, distinct.length) }, worker));
  if (fatal) throw fatal.error;
  return list.map((p) => byPhrase.get(p)!);
}

/**
 * The Idempotency-Key of a bill or pay request (a `deferred` route, DESIGN 10.2): a request of
 * one distinct phrase is one billing transaction, so the key's record rides on it (`folded`,
 * for `billPhrases`); a request of several phrases is several transactions: the key is
 * claimed first, as every other route does (`replay` when it has an answer already).
 */
export async function phraseIdempotency(
  idempotency: DeferredIdempotency | undefined,
  list: readonly string[],
): Promise<{ folded?: DeferredIdempotency; replay?: Reply }> {
  if (!idempotency) return {};
  if (new Set(list).size === 1) return { folded: idempotency };
  const replay = await idempotency.claim();
  return replay ? { replay: { status: replay.statusCode, body: replay.body, headers: replay.headers } } : {};
}

/**
 * `perPhrase`, answered as the array reply. With `folded` (phraseIdempotency) `one` gets the
 * rider of the key's record, whose answer is the created billing's (`message`) at every
 * position: createBilling commits it in the billing's transaction. When the key's record
 * exists already (a retry, a concurrent duplicate), its answer (a replay, or 409), not a 500.
 */
export async function billPhrases(
  field: PhraseField,
  list: readonly string[],
  entityId: string,
  message: string,
  folded: DeferredIdempotency | undefined,
  one: (phrase: string, rider?: Rider<BillItem>) => Promise<ArrayElement>,
): Promise<Reply> {
  const riderOf = (phrase: string) =>
    folded?.rider((bill: BillItem) => arrayReply(list.map(() => createdElement(field, phrase, bill, message))));
  const work = perPhrase(
    field,
    list,
    entityId,
    (phrase) => one(phrase, riderOf(phrase)),
    (e) => e instanceof RiderRefused,
  );
  return arrayReply(await (folded ? folded.answering(work) : work));
}

/** The seed of a deterministic billing request id under an Idempotency-Key (see billingRequestIdFor). */
export function idSeedFor(
  headers: Record<string, string | undefined>,
  keyId: string,
  route: string,
  merchantId: string,
  phrase: string,
): string | undefined {
  const key = headers['idempotency-key'];
  if (!key) return undefined;
  return `${keyId}|${route}|${merchantId}|${key}|${phrase}`;
}
