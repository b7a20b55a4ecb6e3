/**
 * The webhook events as zod schemas: the body every delivery sends (`{id, type, createdAt,
 * data}`) and each type's `data` (DESIGN 6.6 and 6.7, docs/webhooks.md). One place, used by
 * the OpenAPI generator (the document's `webhooks`) and by tests that check what the
 * service really emits. Output shapes (what a receiver gets), so no defaults or transforms.
 *
 * Typed by `EventType`: adding an event type to types.ts without a schema here fails the
 * typecheck, so the documented payloads cannot fall behind the event list.
 */
import * as z from 'zod';
import { EVENT_TYPES, type EventType } from './types';
import { FREQUENCIES } from '../domain/schedule-dates';

const id = (what: string) => z.string().describe(what);
const amount = z.number().describe('Major units (NGN 1500.5 = one thousand five hundred naira fifty kobo)');
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .describe('ISO 4217 code; NGN today');
const dateTime = z.iso.datetime({ offset: true });
const decision = z.enum(['approve_once', 'approve_recurring', 'deny', 'suspended']);
const customerAction = z
  .enum(['approved', 'declined'])
  .describe(
    '`approved` exactly when the decision allows billing and the merchant is not blocked; every refusal a merchant sees is `declined`',
  );
const limit = z.number().describe('Major units');

export const spendingLimitsSchema = z
  .object({
    single: limit.optional(),
    daily: limit.optional(),
    weekly: limit.optional(),
    monthly: limit.optional(),
    yearly: limit.optional(),
  })
  .describe('Only the limits the customer set; daily/weekly/monthly are calendar periods in Africa/Lagos time (ISO weeks start on Monday)');

const amendmentTerms = z.object({ amount, frequency: z.enum(FREQUENCIES), description: z.string().nullable() });

export const billingIntentData = z.object({
  intentId: id('Billing intent id (answer it with POST /v1/billing/intent-response)'),
  customerId: id('Customer id'),
  clientRef: z.string().describe("The bank's own customer identifier"),
  lookupPhrase: z.string().describe('The phrase the merchant sent'),
  entityId: id('Merchant id'),
  merchantName: z.string(),
  currency,
  description: z.string(),
  allowedDecisions: z.array(decision).describe('Decisions the customer may give (approve_recurring only for a trusted merchant)'),
  createdAt: dateTime,
  amendment: z
    .object({
      scheduleId: id('The recurring schedule'),
      amendmentId: id('The amendment'),
      from: amendmentTerms.describe('The terms today'),
      to: amendmentTerms.describe('The terms asked for'),
    })
    .optional()
    .describe(
      "A schedule's amendment (PATCH /v1/recurring/{scheduleId}): approving it (approve_recurring, with limits allowing the new amount) switches the schedule to the new terms from its next run; any other answer keeps the old terms",
    ),
});

export const billingIntentResponseData = z.object({
  intentId: z.string().nullable().describe('The intent answered; null when the bank changed a decision directly'),
  decisionId: id('Customer decision id (one per customer and merchant)'),
  customerId: id('Customer id'),
  entityId: id('Merchant id'),
  lookupPhrase: z.string(),
  decision,
  agreementPhrase: z.string().nullable().describe('Bill with it (POST /v1/customer/bill); null unless customerAction is approved'),
  spendingLimits: spendingLimitsSchema,
  blockMerchant: z.boolean(),
  customerAction,
});

export const billingRequestData = z.object({
  billingRequestId: id('Billing request id (answer it with POST /v1/billing/bank-response)'),
  reference: z.string().describe('Transaction reference'),
  type: z.enum(['agreement', 'one_time', 'recurring']),
  customerId: id('Customer id'),
  clientRef: z.string().describe("The bank's own customer identifier"),
  entityId: id('Merchant id'),
  merchantName: z.string(),
  amount,
  currency,
  description: z.string(),
  requiresApproval: z
    .boolean()
    .describe(
      'true: ask the customer before answering (approve_once, one-time pay); false: an approve_recurring agreement within its limits',
    ),
  expiresAt: dateTime
    .nullable()
    .optional()
    .describe('Present when requiresApproval: the billing is declined automatically (expired) after it'),
  scheduleId: z.string().optional().describe('Recurring runs only'),
});

export const billingUpcomingData = z.object({
  scheduleId: id('Recurring schedule id (skip or cancel it for the customer: POST /v1/bank/subscriptions/{scheduleId}/skip or /cancel)'),
  runAt: dateTime.describe('When the run will bill the customer'),
  sequence: z.number().int().describe("The run's sequence number (its billing.request carries the same scheduleId)"),
  amount,
  currency,
  customerId: id('Customer id'),
  entityId: id('Merchant id'),
  merchantName: z.string(),
  description: z.string(),
});

export const billingResponseData = z.object({
  billingRequestId: id('Billing request id'),
  reference: z.string().describe('Transaction reference'),
  entityId: id('Merchant id'),
  customerId: id('Customer id'),
  amount,
  currency,
  status: z.enum(['succeeded', 'declined', 'expired', 'failed']),
  customerAction,
  bankTransactionId: z.string().nullable(),
  reason: z
    .string()
    .optional()
    .describe(
      "Refusals: customer_denied, customer_suspended, approval_expired, the bank's declineReason (insufficient_funds, account_unavailable, bank_declined), or the failure reason",
    ),
  scheduleId: z.string().optional().describe('Recurring runs only'),
  willRetry: z
    .boolean()
    .optional()
    .describe(
      "Recurring runs only: whether the failed run is retried under the merchant's retry policy (never after the customer's refusal)",
    ),
  nextRetryAt: dateTime.optional().describe('With willRetry true: when the retry runs (a Lagos business day)'),
});

const discoveryLimits = {
  discoveryDailyLimit: z.number().int().describe('Customer look-ups the merchant may make per Lagos day'),
  discoveryMissLimit: z.number().int().describe('Look-ups that find no customer it may make per Lagos day'),
};

export const merchantTrustUpdatedData = z.object({
  entityId: id('Merchant id'),
  trusted: z.boolean(),
  trustLevel: z.enum(['basic', 'enhanced', 'premium']),
  deviceLookupEnabled: z.boolean(),
  lastVerified: dateTime,
  ...discoveryLimits,
});

export const merchantDiscoveryLimitedData = z.object({
  entityId: id('Merchant id'),
  limit: z.enum(['lookups', 'misses']).describe('The limit reached: all look-ups, or those that found no customer'),
  day: z.string().describe('The Lagos day (YYYY-MM-DD) whose budget is used up'),
  lookups: z.number().int().describe('Look-ups counted that day when the limit was reached'),
  misses: z.number().int().describe('Of them, those that found no customer'),
  ...discoveryLimits,
  resetsAt: dateTime.describe('The next Lagos midnight: look-ups are answered again from then'),
  testClock: z.string().optional().describe("Sandbox: the test clock the look-ups ran on (their Lagos day is the clock's)"),
});

/** Every `schedule.*` event: the schedule as the API shows it, plus the fields of that change. */
const scheduleBase = {
  scheduleId: id('Recurring schedule id'),
  entityId: id('Merchant id'),
  customerId: id('Customer id'),
  amount,
  currency,
  frequency: z.enum(['daily', 'weekly', 'monthly', 'yearly']),
  interval: z.number().int().positive(),
  status: z.enum(['active', 'paused', 'cancelled', 'completed', 'processing']),
  nextBillingDate: dateTime.nullable().describe('null once completed or cancelled'),
  totalBillings: z.number().int().describe('Billings that succeeded so far'),
  maxBillings: z.number().int().nullable(),
  failedAttempts: z.number().int().describe('Runs declined, expired or failed'),
  actor: z
    .enum(['merchant', 'bank', 'system'])
    .describe("Who made the change: the merchant, the customer's bank, or the service (runs, completion)"),
};
const schedule = <T extends z.ZodRawShape>(extra: T, what: string) => z.looseObject({ ...scheduleBase, ...extra }).describe(what);

export const scheduleCreatedData = schedule(
  { startDate: dateTime, endDate: dateTime.nullable(), description: z.string().nullable(), createdAt: dateTime },
  'A recurring schedule was created',
);
export const schedulePausedData = schedule(
  {
    pausedAt: dateTime,
    reason: z.string().nullable().describe("The merchant's reason, or why the service paused it"),
    pausedBy: z.enum(['merchant', 'service']).describe('service: a run was refused for lack of permission'),
    resumesAt: dateTime.nullable().optional().describe("When the schedule resumes by itself (the merchant's pause with resumesAt)"),
  },
  'A recurring schedule was paused',
);
export const scheduleResumedData = schedule(
  { resumedAt: dateTime, reason: z.string().optional().describe('When the merchant gave one') },
  'A paused schedule was resumed',
);
export const scheduleCancelledData = schedule(
  { cancelledAt: dateTime, reason: z.string().optional().describe('When given by whoever cancelled') },
  'A recurring schedule was cancelled',
);
export const scheduleRunSkippedData = schedule(
  {
    skippedRunAt: dateTime.describe('The date of the run that will not be billed'),
    skippedSequence: z.number().int().describe('The sequence number the skipped run would have had'),
    reason: z.string().optional().describe('When given by whoever skipped'),
  },
  'The next run of a schedule was skipped (not billed)',
);
const amendmentFields = {
  amendmentId: id('The amendment (PATCH /v1/recurring/{id})'),
  from: amendmentTerms.describe('The terms before'),
  to: amendmentTerms.describe('The terms asked for'),
  requestedAt: dateTime,
};
export const scheduleAmendedData = schedule(
  { ...amendmentFields, effectiveFrom: dateTime.nullable().describe('The next run, the first one billed with the new terms') },
  "The customer's bank approved an amendment: the schedule's terms are the new ones from its next run",
);
export const scheduleAmendmentDeclinedData = schedule(
  {
    ...amendmentFields,
    reason: z
      .enum(['customer_declined', 'limits'])
      .describe(
        "customer_declined: the answer was not approve_recurring (or blocked the merchant); limits: the new decision's limits do not allow the new amount",
      ),
  },
  'The amendment was not approved: the schedule keeps its terms',
);
export const scheduleCompletedData = schedule(
  {
    completedAt: dateTime,
    reason: z.enum(['max_billings', 'end_date']).describe('maxBillings reached, or the next date would pass endDate'),
  },
  'A recurring schedule finished',
);
export const scheduleRunFailedData = schedule(
  {
    runSeq: z.number().int().describe('The run (a run id is scheduleId + runSeq)'),
    reason: z
      .string()
      .describe(
        'spending_limit_exceeded, permission_revoked, merchant_blocked, merchant_not_premium, approval_not_valid, approval_no_payments_left (all but the first also pause the schedule)',
      ),
    customerAction: z.literal('declined'),
    scheduledFor: dateTime.nullable().describe('The due date of the refused run'),
    willRetry: z.boolean().describe("Whether the period is retried under the merchant's retry policy (GET /v1/merchant/retry-policy)"),
    nextRetryAt: dateTime.optional().describe('With willRetry true: when'),
  },
  'A run of the schedule was refused before reaching the bank',
);

export const refundRequestedData = z.object({
  refundId: id('Refund id (confirm it with POST /v1/billing/refund-response)'),
  billingRequestId: id('The refunded billing'),
  reference: z.string().describe('Transaction reference'),
  bankTransactionId: z.string().nullable(),
  customerId: id('Customer id'),
  entityId: id('Merchant id'),
  merchantName: z.string(),
  amount,
  currency,
  reason: z.string().nullable(),
  expectedBy: dateTime,
  createdAt: dateTime,
});

export const refundUpdatedData = z.object({
  refundId: id('Refund id'),
  reference: z.string().describe('Transaction reference'),
  amount,
  currency,
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  reason: z.string().nullable(),
  expectedBy: dateTime,
  createdAt: dateTime,
  updatedAt: dateTime,
  completedAt: dateTime.nullable(),
  failureReason: z.string().nullable().optional().describe('Failed refunds only'),
  billingRequestId: id('The refunded billing'),
  entityId: id('Merchant id'),
});

export const settlementCompletedData = z.object({
  settlementId: id('Settlement id'),
  entityId: id('Merchant id'),
  settlementDate: z.iso.date().describe('The Nigerian business day settled (YYYY-MM-DD)'),
  amount,
  currency,
  count: z.number().int().describe('Captures settled'),
  settledAt: dateTime,
});

const disputeData = {
  disputeId: id('Dispute id'),
  reference: z.string().describe('The disputed transaction'),
  billingRequestId: id('Its billing request'),
  entityId: id('Merchant id'),
  merchantName: z.string(),
  customerId: id('Customer id'),
  amount: amount.describe('Disputed amount, major units'),
  currency,
  reason: z.enum(['unauthorized', 'not_received', 'duplicate', 'amount_incorrect', 'cancelled_recurring', 'other']),
  status: z
    .enum(['needs_response', 'under_review', 'won', 'lost'])
    .describe(
      'needs_response: the merchant may respond or accept until respondBy; won: the merchant keeps the money; lost: the bank keeps it',
    ),
  respondBy: dateTime.describe('Without an answer by then the dispute is lost'),
  evidenceSubmittedAt: dateTime.nullable().describe("When the merchant's evidence arrived (the text is in GET /v1/disputes/{id})"),
  createdAt: dateTime,
  updatedAt: dateTime,
  closedAt: dateTime.nullable(),
  closedBy: z.enum(['merchant', 'bank', 'system']).nullable(),
  actor: z.enum(['merchant', 'bank', 'system']).describe('Who made this change (system: respondBy passed)'),
};

export const disputeCreatedData = z.object(disputeData);
export const disputeUpdatedData = z.object(disputeData);

export const webhookTestData = z.object({
  endpointId: id('The endpoint tested'),
  participantId: id('Its owner'),
  message: z.string(),
});

export interface EventDoc {
  /** Who receives it. */
  receiver: string;
  /** What causes it. */
  when: string;
  data: z.ZodType;
}

/** Every event type: receiver, cause and `data` schema (docs/webhooks.md section 7). */
export const EVENT_CATALOG: Record<EventType, EventDoc> = {
  'billing.intent': {
    receiver: "The customer's bank",
    when: 'A merchant asks the customer to decide on billing permissions (POST /v1/billing/intent)',
    data: billingIntentData,
  },
  'billing.request': {
    receiver: "The customer's bank",
    when: 'A merchant bills a customer (bill, one-time pay, a recurring run)',
    data: billingRequestData,
  },
  'billing.intent.response': {
    receiver: 'The merchant and its provider',
    when: "The customer's decision on an intent (POST /v1/billing/intent-response), or the bank changing a decision",
    data: billingIntentResponseData,
  },
  'billing.upcoming': {
    receiver: "The customer's bank",
    when: "The deployment's pre-debit notice period (24 hours by default) before each period of a recurring schedule is billed, or at once when the run is sooner",
    data: billingUpcomingData,
  },
  'billing.response': {
    receiver: 'The merchant and its provider',
    when: 'The outcome of a billing: paid, declined, expired or failed',
    data: billingResponseData,
  },
  'merchant.trust.updated': {
    receiver: 'The merchant and its provider',
    when: "A provider changed the merchant's trust (PATCH /v1/provider/merchant/trust)",
    data: merchantTrustUpdatedData,
  },
  'merchant.discovery_limited': {
    receiver: 'The merchant and its provider',
    when: "The merchant reached its discovery limit of the Lagos day (look-ups, or look-ups that found no customer): further look-ups answer 429 until the next Lagos midnight. Once per merchant and Lagos day (the sandbox's magic e-mail discovery.limited@sandbox.idpay.test sends it every time)",
    data: merchantDiscoveryLimitedData,
  },
  'schedule.created': { receiver: 'The merchant and its provider', when: 'A recurring schedule was created', data: scheduleCreatedData },
  'schedule.paused': {
    receiver: 'The merchant and its provider',
    when: 'A schedule was paused by the merchant, or by the service after a run was refused for lack of permission',
    data: schedulePausedData,
  },
  'schedule.resumed': { receiver: 'The merchant and its provider', when: 'A paused schedule was resumed', data: scheduleResumedData },
  'schedule.cancelled': {
    receiver: 'The merchant and its provider',
    when: "A schedule was cancelled by the merchant or the customer's bank",
    data: scheduleCancelledData,
  },
  'schedule.run_skipped': {
    receiver: 'The merchant and its provider',
    when: "The customer's bank (or the merchant) skipped the next run",
    data: scheduleRunSkippedData,
  },
  'schedule.amended': {
    receiver: 'The merchant and its provider',
    when: "The customer's bank approved the schedule's amendment (the new terms apply from the next run)",
    data: scheduleAmendedData,
  },
  'schedule.amendment_declined': {
    receiver: 'The merchant and its provider',
    when: "The customer's bank did not approve the schedule's amendment; the old terms hold",
    data: scheduleAmendmentDeclinedData,
  },
  'schedule.completed': {
    receiver: 'The merchant and its provider',
    when: 'A schedule reached maxBillings or its endDate',
    data: scheduleCompletedData,
  },
  'schedule.run_failed': {
    receiver: 'The merchant and its provider',
    when: 'A run was refused (spending limits, permission revoked, merchant blocked or no longer premium)',
    data: scheduleRunFailedData,
  },
  'refund.requested': {
    receiver: "The customer's bank",
    when: 'A merchant started a refund of a billing (POST /v1/refunds/initiate)',
    data: refundRequestedData,
  },
  'refund.updated': {
    receiver: 'The merchant and its provider',
    when: 'A refund changed status (processing, completed, failed)',
    data: refundUpdatedData,
  },
  'settlement.completed': {
    receiver: 'The merchant and its provider',
    when: 'Funds were settled to the merchant (next Nigerian business day)',
    data: settlementCompletedData,
  },
  'dispute.created': {
    receiver: 'The merchant and its provider',
    when: "The customer's bank disputed a debit (POST /v1/bank/disputes): the amount left the merchant's balance",
    data: disputeCreatedData,
  },
  'dispute.updated': {
    receiver: "The merchant and its provider, and the customer's bank",
    when: 'A dispute changed status: the merchant responded (under_review) or accepted (lost), respondBy passed (lost), or the bank decided (won, lost)',
    data: disputeUpdatedData,
  },
  'webhook.test': {
    receiver: 'The endpoint tested only',
    when: 'POST /v1/webhooks/endpoints/{id}/test',
    data: webhookTestData,
  },
};

/** The delivery body of one event type: exactly `{id, type, createdAt, apiVersion, livemode, data}`. */
export function eventBodySchema<T extends EventType>(type: T) {
  return z.strictObject({
    id: z.string().describe('Event id; the same as X-Webhook-Id and on every retry and replay: deduplicate on it'),
    type: z.literal(type),
    createdAt: dateTime,
    apiVersion: z
      .string()
      .describe(
        "The API version the payload is written at: the receiving endpoint's (pinned when it was created); in the events API, the version the request is served at",
      ),
    livemode: z.boolean().describe('True for an event of the live stage, false in the sandbox'),
    data: EVENT_CATALOG[type].data,
  });
}

/** Any event body (a receiver's view: discriminated on `type`). */
export const eventBody = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((t) => eventBodySchema(t)) as unknown as [ReturnType<typeof eventBodySchema>, ...ReturnType<typeof eventBodySchema>[]],
);
