/**
 * Client errors: AppError, the factories that throw it, and THE error table. Every message a
 * client can receive in an error body is declared once, in a message group built by
 * `messages()` (this file's `MSG`, `SANDBOX_MSG`, and the slices' groups: `BILLING_MSG`,
 * `MONEY_MSG`, `PAGING_MSG`, `TOKEN_MESSAGES`, ...), on one line with its status(es) and its
 * code:
 *
 *   recurringNotFound: [404, 'schedule_not_found', 'Recurring schedule not found'],
 *
 * A plain string in a group is a success message (no code). The code of an error is looked up
 * from its message when it is thrown, so every error body carries `code` (one per message),
 * `type` (from the status) and `requestId` (http/endpoint.ts). The factories accept only
 * messages of the table, for their status (typechecked: a message without a code, or thrown
 * with a status it does not declare, does not compile). `{name}` in a message makes it a
 * template, filled at run time with `fill()`; a template has one code whatever it is filled
 * with. The OpenAPI generator publishes the table (`errorTable()`; docs/decisions/error-codes.md).
 */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * The kinds of error (the body's `type`) and the status each kind has: the SDK's published
 * definitions (one place for both sides; sdk/src/errors.ts imports nothing).
 */
export { ERROR_TYPES, type IdpayErrorType as ErrorType, errorTypeForStatus as errorTypeOf } from '../../sdk/src/errors';
import { errorTypeForStatus as errorTypeOf, type IdpayErrorType as ErrorType } from '../../sdk/src/errors';

/** The statuses an error message may be thrown with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 429 | 500;

declare const STATUSES: unique symbol;
declare const TEMPLATE: unique symbol;
/** A message of the error table that may be thrown with status `S` (a plain string at run time). */
export type ErrorMessage<S extends ErrorStatus = never> = string & { readonly [STATUSES]: { readonly [K in S]: true } };
/** A message template of the error table (`{name}` placeholders): throw it through `fill()`. */
export type ErrorTemplate<S extends ErrorStatus = never> = string & { readonly [TEMPLATE]: { readonly [K in S]: true } };

/** One line of a message group: `[status or statuses, code, message, options?]`. */
export type ErrorLine = readonly [
  status: ErrorStatus | readonly ErrorStatus[],
  code: string,
  message: string,
  options?: {
    readonly retry?: boolean;
    /** The one request field a business rule refused (answered as `param`), e.g. `amount`. */
    readonly param?: string;
  },
];

type StatusesOf<S> = S extends readonly (infer X extends ErrorStatus)[] ? X : S extends ErrorStatus ? S : never;
type Messages<T> = {
  readonly [K in keyof T]: T[K] extends readonly [infer S, string, infer M extends string, ...unknown[]]
    ? M extends `${string}{${string}}${string}`
      ? ErrorTemplate<StatusesOf<S>>
      : M & ErrorMessage<StatusesOf<S>>
    : T[K];
};

/** One code of the error table. */
export interface ErrorEntry {
  code: string;
  /** The statuses it is answered with (most messages have one). */
  statuses: ErrorStatus[];
  types: ErrorType[];
  /** Exact text; a template shows its placeholders (`{stage}`). */
  message: string;
  /** "Nothing was written, retry the same request shortly": the Idempotency-Key is released, the SDK retries it. */
  retry: boolean;
  /** The one request field this business rule is about (the answer's `param`); absent when no single field is. */
  param?: string;
}

const byMessage = new Map<string, ErrorEntry>();
const byCode = new Map<string, ErrorEntry>();
const templates: { entry: ErrorEntry; pattern: RegExp }[] = [];
const CODE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

function register(line: ErrorLine): void {
  const [status, code, message, options] = line;
  const statuses = [...(typeof status === 'number' ? [status] : status)].sort((a, b) => a - b);
  const entry: ErrorEntry = {
    code,
    statuses,
    types: [...new Set(statuses.map(errorTypeOf))],
    message,
    retry: options?.retry === true,
    ...(options?.param ? { param: options.param } : {}),
  };
  if (!CODE.test(code)) throw new Error(`Error code "${code}" is not snake_case`);
  const same = byCode.get(code) ?? byMessage.get(message);
  if (same) {
    if (JSON.stringify(same) !== JSON.stringify(entry))
      throw new Error(`One code per message: "${message}" (${code}) clashes with "${same.message}" (${same.code})`);
    return;
  }
  byCode.set(code, entry);
  byMessage.set(message, entry);
  if (/\{\w+\}/.test(message)) {
    const source = message.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    templates.push({ entry, pattern: new RegExp(`^${source.join('.+?')}$`) });
  }
}

/**
 * A message group: each `[status, code, message]` line is registered in the error table and
 * becomes its message (typed for its statuses); a plain string stays a plain (success)
 * message; a message of another group may be reused as is.
 */
export function messages<const T extends Record<string, string | ErrorLine>>(group: T): Messages<T> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(group)) {
    if (typeof value === 'string') out[key] = value;
    else {
      register(value);
      out[key] = value[2];
    }
  }
  return out as Messages<T>;
}

/** A template's message with its placeholders filled: `fill(MSG.wrongStage, { stage })`. */
export function fill<S extends ErrorStatus>(template: ErrorTemplate<S>, values: Record<string, string>): ErrorMessage<S> {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `{${name}}`) as ErrorMessage<S>;
}

/** The table entry of a message as sent (a template's filled text included); undefined for a message the table lacks. */
export function errorEntryOf(message: string): ErrorEntry | undefined {
  return byMessage.get(message) ?? templates.find((t) => t.pattern.test(message))?.entry;
}

/** The entry of a code; undefined for a code the table lacks. */
export const errorEntryByCode = (code: string): ErrorEntry | undefined => byCode.get(code);

/** Every code registered so far (every group whose module is loaded), sorted by code. */
export const errorTable = (): ErrorEntry[] => [...byCode.values()].sort((a, b) => a.code.localeCompare(b.code));

/** The code of an error whose message is not in the table (the harness and a unit test fail on it). */
export const UNLISTED_CODE = 'unlisted_error';

/**
 * Where the API reference explains a code: its row of the Errors table (an anchor
 * `error-<code>`), relative to the API's base URL (the reference is served at `/docs`).
 */
export const errorDocUrl = (code: string) => `/docs#error-${code}`;

export class AppError extends Error {
  /** The message's code in the error table. */
  readonly code: string;
  readonly type: ErrorType;
  /** The one request field a business rule refused (the table's `param` of the message), if any. */
  readonly param: string | undefined;
  /** The code's entry in the API reference (errorDocUrl). */
  get docUrl(): string {
    return errorDocUrl(this.code);
  }
  constructor(
    readonly statusCode: number,
    message: ErrorMessage,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    const entry = errorEntryOf(message);
    this.code = entry?.code ?? UNLISTED_CODE;
    this.param = entry?.param;
    this.type = errorTypeOf(statusCode);
  }
}

export const badRequest = (message: ErrorMessage<400>, errors?: FieldError[]) => new AppError(400, message, errors);
export const unauthorized = (message: ErrorMessage<401>) => new AppError(401, message);
export const forbidden = (message: ErrorMessage<403>) => new AppError(403, message);
export const notFound = (message: ErrorMessage<404>) => new AppError(404, message);
export const conflict = (message: ErrorMessage<409>, errors?: FieldError[]) => new AppError(409, message, errors);

/** Messages shared by several endpoints (spec and contract: exact texts, acceptance tests compare them). */
export const MSG = messages({
  invalidJson: [400, 'invalid_json', 'Invalid JSON body'],
  invalidRequest: [400, 'invalid_request_parameters', 'Invalid request parameters'],
  invalidQuery: [400, 'invalid_query_parameters', 'Invalid query parameters'],
  unknownVersion: [400, 'unknown_api_version', 'Unknown API version'],
  routeNotFound: [404, 'route_not_found', 'Route not found'],
  methodNotAllowed: [405, 'method_not_allowed', 'Method not allowed'],
  forbiddenKind: [403, 'participant_type_forbidden', 'Forbidden for this participant type'],
  merchantNotFound: [404, 'merchant_not_found', 'Merchant not found'],
  participantNotFound: [404, 'participant_not_found', 'Participant not found'],
  customerNotFound: [404, 'customer_not_found', 'Customer not found'],
  missingKey: [401, 'api_key_missing', 'Missing API key'],
  invalidKey: [401, 'api_key_invalid', 'Invalid API key'],
  keyExpired: [401, 'api_key_expired', 'API key has expired'],
  wrongStageKey: [401, 'api_key_wrong_environment', 'API key is not valid for the {stage} environment'],
  personRequired: [403, 'person_required', 'This action requires a signed-in user'],
  insufficientRole: [403, 'insufficient_role', 'Insufficient role'],
  notAMember: [403, 'not_a_member', 'You are not a member of this participant'],
  participantIdRequired: [400, 'participant_id_required', 'X-Participant-Id header is required when you belong to several participants'],
  applicationNotFound: [404, 'application_not_found', 'Application not found'],
  applicationDecided: [409, 'application_decided', 'Application has already been decided'],
  memberNotFound: [404, 'member_not_found', 'Member not found'],
  keyNotFound: [404, 'key_not_found', 'Key not found'],
  operatorKeyNotFound: [404, 'api_key_not_found', 'API key not found'],
  lastOwner: [409, 'last_owner', 'A participant needs at least one owner'],
  invitationNotFound: [404, 'invitation_not_found', 'Invitation not found'],
  invitationOtherEmail: [403, 'invitation_other_email', 'This invitation is for another e-mail address'],
  invitationEmailUnverified: [403, 'email_unverified', 'Verify your e-mail address first'],
  invitationExpired: [410, 'invitation_expired', 'Invitation has expired'],
  inviteeAlreadyMember: [409, 'invitee_already_member', 'Already a member'],
  applicationPending: [409, 'application_pending', 'An application is already pending'],
  sessionEnded: [401, 'session_ended', 'Session has ended'],
  mfaRequired: [403, 'mfa_required', 'Set up two-factor authentication first'],
  refreshTokenForeign: [400, 'refresh_token_foreign', 'Refresh token does not belong to this session'],
  invalidEntityIdHeader: [400, 'invalid_entity_id_header', 'Invalid X-Entity-Id header'],
  invalidParticipantIdHeader: [400, 'invalid_participant_id_header', 'Invalid X-Participant-Id header'],
  invalidTestClockHeader: [400, 'invalid_test_clock_header', 'Invalid X-Test-Clock header'],
  alreadyMember: [409, 'already_member', 'You are already a member of this participant'],
  ownerOnly: [403, 'owner_only', 'Only an owner can grant, change or remove the owner role'],
  memberChanged: [409, 'member_contention', 'The member was changed by another request; try again', { retry: true }],
  internal: [500, 'internal_error', 'Internal server error'],
  tooManyRequests: [429, 'rate_limited', 'Too many requests'],
  invalidIdempotencyKey: [400, 'invalid_idempotency_key', 'Invalid Idempotency-Key header'],
  idempotencyMismatch: [409, 'idempotency_mismatch', 'Idempotency key reused with a different request'],
  idempotencyInProgress: [409, 'idempotency_in_progress', 'Request with this idempotency key is in progress', { retry: true }],
  unsupportedCurrency: [400, 'unsupported_currency', 'Unsupported currency', { param: 'currency' }],
  entityIdRequired: [400, 'entity_id_required', 'X-Entity-Id header is required when a provider calls a merchant endpoint'],
  webhookEndpointNotFound: [404, 'webhook_endpoint_not_found', 'Webhook endpoint not found'],
  deliveryNotFound: [404, 'delivery_not_found', 'Delivery not found'],
  eventNotFound: [404, 'event_not_found', 'Event not found'],
  eventExpired: [409, 'event_expired', 'The event of this delivery is older than 30 days and no longer kept'],
  webhookEndpointLimit: [409, 'endpoint_limit_reached', 'Webhook endpoint limit reached'],
  replayConflict: [409, 'replay_conflict', 'Delivery is being replayed concurrently'],
  rotationConflict: [409, 'rotation_conflict', 'Webhook secret is being rotated concurrently'],
  invalidMerchantData: [400, 'invalid_merchant_data', 'Invalid merchant data'],
  merchantEmailExists: [409, 'merchant_email_exists', 'Merchant with this email already exists', { param: 'email' }],
  invalidTrustLevel: [400, 'invalid_trust_level', 'Invalid trust level specified'],
  trustLevelForbidden: [403, 'insufficient_trust_permission', 'Insufficient permissions to modify trust level', { param: 'trustLevel' }],
  batchNotFound: [404, 'batch_not_found', 'Batch not found'],
  deviceLookupForbidden: [403, 'device_lookup_not_permitted', 'Device lookup not permitted for this merchant'],
  discoveryLimit: [429, 'discovery_limit', 'Discovery limit reached'],
  deviceLinkedElsewhere: [409, 'device_already_linked', 'Device is already linked to another customer', { param: 'deviceId' }],
  // Agreements
  billingIntentNotFound: [404, 'billing_intent_not_found', 'Billing intent not found'],
  billingIntentAnswered: [409, 'intent_already_answered', 'Billing intent has already been answered'],
  approveRecurringUntrusted: [400, 'merchant_not_trusted', 'approve_recurring requires a trusted merchant'],
  decisionNotFound: [404, 'decision_not_found', 'Customer decision not found'],
  decisionChanging: [409, 'decision_contention', 'Customer decision is changing; retry shortly', { retry: true }],
  // Recurring schedules
  recurringNotFound: [404, 'schedule_not_found', 'Recurring schedule not found'],
  recurringPermissionRequired: [[400, 403], 'recurring_permission_required', 'Customer must have approve_recurring permission'],
  recurringTrustRequired: [403, 'recurring_not_allowed', 'Merchant trust level does not allow recurring billing'],
  recurringNotActive: [409, 'schedule_not_active', 'Recurring schedule is not active'],
  recurringNotPaused: [409, 'schedule_not_paused', 'Recurring schedule is not paused'],
  recurringRunInProgress: [409, 'schedule_run_in_progress', 'A run of this recurring schedule is already in progress'],
  recurringAmendmentPending: [409, 'amendment_pending', 'Recurring schedule already has a pending amendment'],
});

export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(429, MSG.tooManyRequests, undefined, { 'Retry-After': String(retryAfterSeconds) });

/** DESIGN 10.5: a merchant over its discovery budget, until the next Lagos day. */
export const discoveryLimited = (retryAfterSeconds: number) =>
  new AppError(429, MSG.discoveryLimit, undefined, { 'Retry-After': String(retryAfterSeconds) });

/** Sandbox test helpers: their answers and refusals (`POST /v1/sandbox/...`). */
export const SANDBOX_MSG = messages({
  customersListed: 'Sandbox customers',
  billingNotPending: [409, 'billing_not_pending', 'Billing request is not pending'],
  billingNotAwaitingApproval: [409, 'billing_not_awaiting_approval', "Billing request is not awaiting the customer's approval"],
  billingExpired: 'Billing request expired',
  refundCompleted: 'Refund completed',
  refundFailed: [409, 'refund_failed', 'Refund has failed and cannot be completed'],
  settlementsRun: 'Settlement run completed',
  recurringRunDue: 'Recurring run is due now',
  recurringRunInProgress: MSG.recurringRunInProgress,
  /** A helper that keeps losing a race with concurrent writers: 409, never 5xx. */
  raceLost: [409, 'sandbox_race_lost', 'Sandbox helper lost a race with a concurrent request; retry', { retry: true }],
  testClockNotFound: [404, 'test_clock_not_found', 'Test clock not found'],
  testClockAdvancing: [409, 'test_clock_advancing', 'Test clock is advancing; wait until it is ready'],
  /** A bank's answer to a billing of a deleted test clock (DESIGN 9.2): the billing failed instead. */
  billingClockDeleted: [409, 'test_clock_deleted', 'Billing request was cancelled: its test clock was deleted'],
});
