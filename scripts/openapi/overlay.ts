/**
 * What the OpenAPI generator cannot read from a handler's zod schemas: the success status
 * and the shape of the success body where they differ from the default (200, the
 * `{statusCode, success, message, data}` envelope). Keyed by route key (`METHOD /path`).
 * No request schema lives here: those come from the handlers' `.spec` only.
 *
 * test/docs/openapi.test.ts checks that every key is a route of the table and that the
 * `ok(<status>, ...)` calls in each handler's source are among the statuses documented.
 */
export type SuccessShape =
  /** `{statusCode, success: true, message, data}` (+ extra top-level fields such as `total`). */
  | 'envelope'
  /** The array of per-phrase elements (intent, bill, pay): each `{statusCode, success, message, ...}`. */
  | 'array'
  /** A JSON object without the envelope's `success` (device-permission). */
  | 'object'
  /** The OpenAPI document itself. */
  | 'openapi'
  /** An HTML page. */
  | 'html';

export interface ResponseFacts {
  /** Success statuses (default [200]). */
  status?: number[];
  shape?: SuccessShape;
  /** What the success body holds, when the handler gives no `response` schema. */
  note?: string;
  /** Error statuses beyond the usual ones (400, 401, 403, 404, 409, 429, 500), e.g. 410. */
  errors?: { status: number; description: string }[];
}

export const RESPONSE_FACTS: Record<string, ResponseFacts> = {
  'POST /v1/team/invitations/{token}/accept': {
    errors: [{ status: 410, description: 'Gone: the invitation has expired (7 days): `Invitation has expired`.' }],
  },
  'POST /v1/operator/participants': {
    status: [201],
    note: '`data: {id, type, name, email, providerId, apiKey}`; `apiKey` is shown only here.',
  },
  'POST /v1/operator/participants/{id}/keys': {
    status: [201],
    note: '`data: {keyId, participantId, apiKey}`; `apiKey` is shown only here.',
  },
  'PATCH /v1/operator/providers/{id}': { note: '`data: {id, maxTrustLevel}`' },
  'POST /v1/bank/customers': { status: [201] },
  'POST /v1/bank/customer/device/link': { note: '`data: {customerId, deviceId, linkedAt}`' },
  'GET /v1/bank/customer-decisions': { note: '`data`: the decisions (array); `hasMore` and (skip pages) `total` at the top level.' },
  'POST /v1/billing/bank-responses': {
    status: [200, 207],
    shape: 'array',
    note: "One element per answer, in input order: `{billingRequestId, statusCode, success, message}`, each answered exactly as `POST /v1/billing/bank-response` would (404 for an unknown or another bank's billing, 409 when already answered or expired). HTTP status: the elements' common statusCode, or 207 when they differ.",
  },
  'POST /v1/billing/intent': {
    status: [200, 207],
    shape: 'array',
    note: "One element per lookupPhrase, in input order: `{statusCode, success, message, lookupPhrase, entityId}` (404 `Customer not found` for an unknown phrase). HTTP status: the elements' common statusCode, or 207 when they differ.",
  },
  'POST /v1/customer/bill': {
    status: [201, 207],
    shape: 'array',
    note: "One element per agreementPhrase, in input order: `{statusCode, success, message, reference, phrase, entityId}`; refusals are elements with 403. HTTP status: the elements' common statusCode, or 207 when they differ.",
  },
  'POST /v1/customer/pay': {
    status: [201, 207],
    shape: 'array',
    note: "One element per lookupPhrase, in input order: `{statusCode, success, message, reference, lookupPhrase, entityId}`. Always needs the customer's approval through the bank. HTTP status: the elements' common statusCode, or 207 when they differ.",
  },
  'GET /v1/balance/details': {
    note: '`data`: totalBalance, unsettledBalance, settledBalance, currency, bankAccountInfo, withdrawalInfo, nextSettlement.',
  },
  'POST /v1/customer/device/lookup': { note: '`data: {lookupPhrase}`' },
  'GET /v1/customer/banks': { note: '`data: {banks: [{bankId, bankName, lookupPhrase}]}`' },
  'GET /v1/merchant/customer-decisions': { note: '`data`: the decisions (array); `hasMore` and (skip pages) `total` at the top level.' },
  'POST /v1/billing/recurring/create': {
    status: [201],
    note: '`data: {scheduleId, customerId, amount, frequency, status, nextBillingDate}`',
  },
  'POST /v1/recurring/{scheduleId}/pause': { note: '`data: {scheduleId, status, pausedAt}`' },
  'POST /v1/recurring/{scheduleId}/resume': { note: '`data: {scheduleId, status, resumedAt, nextBillingDate}`' },
  'GET /v1/recurring': { note: '`data: {schedules[], total, hasMore}` (`total` on skip pages only).' },
  'DELETE /v1/recurring/{scheduleId}': { note: '`data: {scheduleId, status: "cancelled", cancelledAt}`' },
  'POST /v1/sandbox/test-clocks': { status: [201] },
  'POST /v1/sandbox/test-clocks/{clockId}/advance': { status: [202] },
  'PATCH /v1/recurring/{scheduleId}': {
    status: [202],
    note: '`data: {scheduleId, amendmentId, status: "pending"}`; the customer\'s bank receives a `billing.intent` with the amendment; then `schedule.amended` (the new terms apply from the next run) or `schedule.amendment_declined` (the old terms hold).',
  },
  'GET /v1/transaction-history': { note: '`data: {transactions[], total, hasMore}`, newest first (`total` on skip pages only).' },
  'POST /v1/refunds/initiate': { status: [201], note: '`data: {refundId, reference, amount, currency, status: "pending", expectedBy}`' },
  'POST /v1/exports': { status: [202] },
  'POST /v1/bank/disputes': { status: [201] },
  'POST /v1/sandbox/transactions/{reference}/dispute': { status: [201] },
  'POST /v1/provider/merchants': { status: [201], note: "`data: {created, merchants[]}`; each merchant's `apiKey` is shown only here." },
  'GET /v1/provider/merchants': { note: '`data: {merchants[], total, hasMore}` (`total` on offset pages only).' },
  'GET /v1/provider/merchant/trust/multiple': {
    note: '`data`: trust statuses with entityName (array); `hasMore` and (offset pages) `total` at the top level.',
  },
  'GET /v1/provider/merchant/trust/device-permission': {
    shape: 'object',
    note: 'No `success` field: `{statusCode, allowed, reason, trustStatus: {trusted, trustLevel, deviceLookupEnabled, lastVerified}}`.',
  },
  'POST /v1/provider/merchant/trust/validate': { note: '`data: {currentTrustLevel, valid}`' },
  'POST /v1/webhooks/endpoints': {
    status: [201],
    note: '`data: {id, url, events, secret, status, createdAt}`; `secret` is shown only here.',
  },
  'GET /v1/webhooks/endpoints': {
    note: '`data: {endpoints[], total, hasMore}` (never a secret; `total` unless paged with `startingAfter`).',
  },
  'POST /v1/webhooks/endpoints/{id}/rotate-secret': { note: '`data: {id, secret, previousSecretExpiresAt}`' },
  'POST /v1/webhooks/endpoints/{id}/test': { status: [202], note: '`data: {eventId, deliveryId, endpointId, type}`' },
  'GET /v1/webhooks/deliveries': { note: '`data: {deliveries[], total, hasMore}` (`total` on skip pages only).' },
  'POST /v1/webhooks/deliveries/{id}/replay': { status: [202], note: '`data`: the delivery.' },
  'POST /v1/onboarding/applications': { status: [201] },
  'POST /v1/keys': { status: [201] },
  'POST /v1/team/invitations': { status: [201] },
  'GET /v1/openapi.json': { shape: 'openapi' },
  'GET /docs': { shape: 'html' },
};
