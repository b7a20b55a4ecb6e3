/**
 * Response shapes several operations share (DESIGN 8.2: every operation types its 2xx
 * `data`). Each area's `responses.ts` (one entry per handler file) uses these; the OpenAPI
 * generator reads those modules (handlers never import them: zod stays out of read bundles).
 * Registered with an id, each is one component of the document.
 */
import * as z from 'zod';
import { DECISION_VALUES } from '../domain/decisions';
import { CONSENT_CHANNELS } from '../domain/consent';
import { FREQUENCIES } from '../domain/schedule-dates';
import { TRUST_LEVELS } from '../domain/trust';
import { EVENT_TYPES } from '../events/types';
import { SCHEDULE_STATUSES } from '../recurring/views';
import { TRANSACTION_STATUSES } from '../transactions/store';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from '../disputes/views';
import { DELIVERY_STATUSES } from '../webhooks/delivery-store';
import { ERROR_TYPES } from '../platform/errors';

/**
 * An area's response schemas (`functions/api/<area>/responses.ts` exports `RESPONSES`), keyed
 * by handler file name: `data` (the envelope's `data` of the 2xx answer), `elements` (one
 * element of a per-phrase array answer) or `body` (the whole 2xx body, for answers without
 * the envelope); beside `data`, `envelope`: properties of the envelope next to it (the
 * array-shaped lists' `hasMore` and `total`).
 */
export type Responses = Record<string, { data?: z.ZodType; envelope?: z.ZodObject; elements?: z.ZodType; body?: z.ZodType }>;

/** The top-level properties beside an array-shaped list's `data` (DESIGN 8.9). */
export const listEnvelope = () => z.object({ hasMore, total });

export const iso = z.string().describe('ISO 8601 date-time, UTC');
export const money = z.number().describe('Amount in major units (NGN 1500.5)');
export const currency = z.string().describe('ISO 4217 code (NGN)');
export const count = z.number().int().min(0);
/** Lists (DESIGN 8.9): whether items follow this page (ask for them with `startingAfter` = the last item's id). */
export const hasMore = z.boolean().describe('Whether more items follow: ask with `startingAfter` = the id of the last item of this page');
/** Spec lists: every match, on skip/offset pages only (a `startingAfter` page omits it). */
export const total = count.optional().describe('Number of matches: on skip/offset pages; omitted on `startingAfter` pages');

export const spendingLimits = z
  .object({
    single: money.optional(),
    daily: money.optional(),
    weekly: money.optional(),
    monthly: money.optional(),
    yearly: money.optional(),
  })
  .meta({
    id: 'SpendingLimits',
    description: 'Limits in major units; an absent period has no limit. yearly: the Lagos calendar year.',
  });

/** Consent terms (DESIGN 8.5); null = not set. */
export const consentTerms = {
  validFrom: iso.nullable().describe('No billing before it'),
  validTo: iso.nullable().describe('No billing after it (inclusive)'),
  maxPayments: z.number().int().nullable().describe('Billings allowed under the decision in all (succeeded + in flight)'),
  channel: z.enum(CONSENT_CHANNELS).nullable().describe('Where the customer gave consent (for the record)'),
  customerAcceptedAt: iso.nullable().describe('When the customer accepted (for the record)'),
};

/** On decision reads: only the terms set (absent = not set, like spendingLimits' periods). */
const setConsentTerms = Object.fromEntries(Object.entries(consentTerms).map(([k, v]) => [k, v.unwrap().optional()])) as {
  [K in keyof typeof consentTerms]: ReturnType<ReturnType<(typeof consentTerms)[K]['unwrap']>['optional']>;
};

export const remaining = z
  .object({
    single: money.nullable(),
    daily: money.nullable(),
    weekly: money.nullable(),
    monthly: money.nullable(),
    yearly: money.nullable(),
    payments: z.number().int().nullable(),
  })
  .meta({
    id: 'RemainingLimits',
    description: 'What is left of each limit in the current Lagos periods (null = no limit); payments: billings left under maxPayments.',
  });

export const decisionVersion = z
  .object({
    version: z.number().int(),
    decision: z.enum(DECISION_VALUES),
    spendingLimits,
    blockMerchant: z.boolean(),
    ...consentTerms,
    actor: z.object({ type: z.enum(['bank', 'system']) }),
    changedAt: iso,
    reason: z.string().nullable().describe('intent_response, bank_update, validity_expired'),
  })
  .meta({ id: 'CustomerDecisionVersion' });

export const decision = z
  .object({
    id: z.string(),
    customerId: z.string(),
    entityId: z.string(),
    agreementPhrase: z.string().nullable(),
    decision: z.enum(DECISION_VALUES),
    spendingLimits,
    blockMerchant: z.boolean(),
    ...setConsentTerms,
    createdAt: iso,
    lastUsed: iso.nullable(),
  })
  .meta({ id: 'CustomerDecision' });

/** A customer beside its id in a list or a read (DESIGN 9.7); null when the customer's record is gone. */
export const customerName = z
  .object({ name: z.string().describe('First and last name'), email: z.string() })
  .meta({ id: 'CustomerName', description: "The customer's name and e-mail" });

export const decisionDetail = decision
  .extend({ lookupPhrase: z.string(), lastUpdated: iso })
  .meta({ id: 'CustomerDecisionDetail', description: 'A decision with its lookup phrase and last change.' });

export const trustStatus = z
  .object({ trusted: z.boolean(), trustLevel: z.enum(TRUST_LEVELS), deviceLookupEnabled: z.boolean(), lastVerified: iso.nullable() })
  .meta({ id: 'TrustStatus' });

export const merchantTrust = trustStatus.extend({ entityId: z.string() }).meta({ id: 'MerchantTrust' });

const scheduleCore = {
  scheduleId: z.string(),
  customerId: z.string(),
  amount: money,
  currency,
  frequency: z.enum(FREQUENCIES),
  status: z.enum(SCHEDULE_STATUSES),
  nextBillingDate: iso.nullable(),
  totalBillings: count,
  createdAt: iso,
};

export const scheduleSummary = z.object(scheduleCore).meta({ id: 'ScheduleSummary' });

const amendmentTerms = z
  .object({ amount: money, frequency: z.enum(FREQUENCIES), description: z.string().nullable() })
  .meta({ id: 'ScheduleTerms', description: "A schedule's amendable terms" });

export const schedule = z
  .object({
    ...scheduleCore,
    agreementPhrase: z.string(),
    interval: z.number().int().min(1),
    startDate: iso,
    endDate: iso.nullable(),
    maxBillings: z.number().int().nullable(),
    failedAttempts: count,
    description: z.string().nullable(),
    entityId: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    updatedAt: iso,
    pausedAt: iso.nullable(),
    pauseReason: z.string().nullable(),
    resumedAt: iso.nullable(),
    cancelledAt: iso.nullable(),
    completedAt: iso.nullable(),
    pendingAmendment: z
      .object({ amendmentId: z.string(), from: amendmentTerms, to: amendmentTerms, requestedAt: iso })
      .optional()
      .describe("An amendment waiting for the customer's bank to approve it; absent otherwise"),
  })
  .meta({ id: 'RecurringSchedule' });

export const transaction = z
  .object({
    reference: z.string(),
    billingRequestId: z.string(),
    type: z.enum(['agreement', 'one_time', 'recurring']),
    status: z.enum(TRANSACTION_STATUSES),
    amount: money,
    refundedAmount: money,
    currency,
    description: z.string().nullable(),
    customerId: z.string(),
    entityId: z.string(),
    merchantName: z.string(),
    bankTransactionId: z.string().nullable(),
    scheduleId: z.string().nullable(),
    settlementId: z.string().nullable().describe('The settlement that paid it; null until settled'),
    disputedAmount: money.describe('Of its disputes, the amount open or lost (0 when none)'),
    disputeStatus: z.enum(DISPUTE_STATUSES).nullable().describe('The status of its latest dispute; null when never disputed'),
    createdAt: iso,
    updatedAt: iso,
  })
  .meta({ id: 'Transaction' });

export const dispute = z
  .object({
    disputeId: z.string(),
    reference: z.string().describe('The disputed transaction'),
    billingRequestId: z.string(),
    entityId: z.string().describe('Merchant id'),
    merchantName: z.string(),
    customerId: z.string(),
    amount: money.describe('Disputed amount'),
    currency,
    reason: z.enum(DISPUTE_REASONS),
    status: z
      .enum(DISPUTE_STATUSES)
      .describe(
        'needs_response (the merchant may respond or accept until respondBy), under_review (the bank decides), won (the merchant keeps the money), lost',
      ),
    respondBy: iso.describe('Without an answer by then the dispute is lost'),
    evidence: z.object({ text: z.string(), submittedAt: iso }).nullable().describe("The merchant's answer; null until it responds"),
    createdAt: iso,
    updatedAt: iso,
    closedAt: iso.nullable(),
    closedBy: z.enum(['merchant', 'bank', 'system']).nullable().describe('Who closed it (system: respondBy passed)'),
  })
  .meta({ id: 'Dispute' });

export const refund = z
  .object({
    refundId: z.string(),
    reference: z.string(),
    amount: money,
    currency,
    status: z.enum(['pending', 'processing', 'completed', 'failed']),
    reason: z.string().nullable(),
    expectedBy: iso,
    createdAt: iso,
    updatedAt: iso,
    completedAt: iso.nullable(),
    failureReason: z.string().optional(),
  })
  .meta({ id: 'Refund' });

export const attempt = z
  .object({
    attempt: z.number().int(),
    at: iso,
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const delivery = z
  .object({
    id: z.string(),
    eventId: z.string(),
    eventType: z.enum(EVENT_TYPES),
    endpointId: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: count,
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastAttemptAt: iso.nullable(),
    nextAttemptAt: iso.nullable(),
    createdAt: iso,
    attemptHistory: z.array(attempt),
  })
  .meta({ id: 'WebhookDelivery' });

export const endpointView = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    status: z.enum(['enabled', 'disabled']),
    disabledAt: iso.nullable(),
    disabledReason: z.string().nullable(),
    previousSecretExpiresAt: iso.nullable(),
    health: z
      .enum(['healthy', 'failing', 'unknown'])
      .describe(
        'failing: its last 5 attempts failed (any status but 2xx, or no answer), retries still pending included; unknown: no attempt yet',
      ),
    createdAt: iso,
    updatedAt: iso,
  })
  .meta({ id: 'WebhookEndpoint' });

export const batchSummary = z
  .object({ total: count, successful: count, failed: count, duplicates: count, invalidData: count })
  .meta({ id: 'BatchSummary' });

/** A per-phrase element of intent / bill / pay answers (the fields every element has). */
export const element = {
  statusCode: z.number().int(),
  success: z.boolean(),
  message: z.string(),
  code: z.string().optional().describe('On a refused element: the code of its message (see Errors)'),
  type: z.enum(ERROR_TYPES).optional().describe('On a refused element: the kind of error'),
  docUrl: z.string().optional().describe("On a refused element: its code's entry in the API reference (`/docs#error-<code>`)"),
  param: z.string().optional().describe('On an element a business rule refused for one field of the request: that field (e.g. `amount`)'),
  entityId: z.string(),
};

/** What a created billing adds to its element (bill, pay). */
export const billedElement = {
  reference: z.string().optional(),
  billingRequestId: z.string().optional(),
  amount: money.optional(),
  currency: currency.optional(),
  status: z.enum(TRANSACTION_STATUSES).optional(),
  requiresApproval: z.boolean().optional(),
  expiresAt: iso.optional().describe('When the approval window ends (requiresApproval only)'),
};

/* People (DESIGN 8.3) */
export const role = z.enum(['owner', 'admin', 'developer', 'viewer']);
export const member = z
  .object({ userId: z.string().describe("The person's Cognito user id"), email: z.string().nullable(), role, joinedAt: iso })
  .meta({ id: 'TeamMember' });
export const applicationStatus = z.enum(['pending', 'approved', 'rejected']);
export const application = z
  .object({
    applicationId: z.string(),
    status: applicationStatus,
    type: z.enum(['merchant', 'provider']),
    businessName: z.string(),
    email: z.string(),
    country: z.string(),
    registrationNumber: z.string(),
    website: z.string().nullable(),
    address: z.object({ line1: z.string(), city: z.string(), country: z.string() }),
    applicantEmail: z.string().nullable(),
    createdAt: iso,
    decidedAt: iso.nullable(),
    decidedBy: z.string().nullable().describe('`operator`, or `sandbox` when approved at once'),
    reason: z.string().nullable().describe('Why it was rejected'),
    participantId: z.string().nullable().describe('The participant created on approval'),
  })
  .meta({ id: 'Application' });
