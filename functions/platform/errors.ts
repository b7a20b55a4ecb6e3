/** An error with a status and a client-facing message: the only errors whose text leaves the service. */
export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, errors?: FieldError[], code = 'validation_error') => new AppError(400, message, code, errors);
export const unauthorized = (message: string) => new AppError(401, message, 'unauthorized');
export const forbidden = (message: string, code = 'forbidden') => new AppError(403, message, code);
export const notFound = (message: string) => new AppError(404, message, 'not_found');
export const conflict = (message: string, code = 'conflict') => new AppError(409, message, code);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(429, 'Too many requests', 'rate_limited', undefined, { 'Retry-After': String(retryAfterSeconds) });

/** Messages shared by several endpoints (spec and DESIGN 6.9). */
export const MSG = {
  invalidJson: 'Invalid JSON body',
  invalidRequest: 'Invalid request parameters',
  invalidQuery: 'Invalid query parameters',
  routeNotFound: 'Route not found',
  methodNotAllowed: 'Method not allowed',
  forbiddenKind: 'Forbidden for this participant type',
  merchantNotFound: 'Merchant not found',
  participantNotFound: 'Participant not found',
  customerNotFound: 'Customer not found',
  missingKey: 'Missing API key',
  invalidKey: 'Invalid API key',
  keyExpired: 'API key has expired',
  personRequired: 'This action requires a signed-in user',
  insufficientRole: 'Insufficient role',
  notAMember: 'You are not a member of this participant',
  participantIdRequired: 'X-Participant-Id header is required when you belong to several participants',
  applicationNotFound: 'Application not found',
  applicationDecided: 'Application has already been decided',
  memberNotFound: 'Member not found',
  keyNotFound: 'Key not found',
  lastOwner: 'A participant needs at least one owner',
  invitationNotFound: 'Invitation not found',
  invitationOtherEmail: 'This invitation is for another e-mail address',
  invitationEmailUnverified: 'Verify your e-mail address first',
  invitationExpired: 'Invitation has expired',
  inviteeAlreadyMember: 'Already a member',
  applicationPending: 'An application is already pending',
  sessionEnded: 'Session has ended',
  invalidEntityIdHeader: 'Invalid X-Entity-Id header',
  invalidParticipantIdHeader: 'Invalid X-Participant-Id header',
  invalidTestClockHeader: 'Invalid X-Test-Clock header',
  alreadyMember: 'You are already a member of this participant',
  ownerOnly: 'Only an owner can grant, change or remove the owner role',
  memberChanged: 'The member was changed by another request; try again',
  internal: 'Internal server error',
  invalidIdempotencyKey: 'Invalid Idempotency-Key header',
  idempotencyMismatch: 'Idempotency key reused with a different request',
  idempotencyInProgress: 'Request with this idempotency key is in progress',
  unsupportedCurrency: 'Unsupported currency',
  entityIdRequired: 'X-Entity-Id header is required when a provider calls a merchant endpoint',
  webhookEndpointNotFound: 'Webhook endpoint not found',
  deliveryNotFound: 'Delivery not found',
  eventNotFound: 'Event not found',
  eventExpired: 'The event of this delivery is older than 30 days and no longer kept',
  webhookEndpointLimit: 'Webhook endpoint limit reached',
  invalidMerchantData: 'Invalid merchant data',
  merchantEmailExists: 'Merchant with this email already exists',
  invalidTrustLevel: 'Invalid trust level specified',
  trustLevelForbidden: 'Insufficient permissions to modify trust level',
  batchNotFound: 'Batch not found',
  deviceLookupForbidden: 'Device lookup not permitted for this merchant',
  deviceLinkedElsewhere: 'Device is already linked to another customer',
  // Agreements (DESIGN 6.5, 6.9)
  billingIntentNotFound: 'Billing intent not found',
  billingIntentAnswered: 'Billing intent has already been answered',
  approveRecurringUntrusted: 'approve_recurring requires a trusted merchant',
  decisionNotFound: 'Customer decision not found',
  // Recurring schedules (spec Errors, DESIGN 6.5 and 6.9)
  recurringNotFound: 'Recurring schedule not found',
  recurringPermissionRequired: 'Customer must have approve_recurring permission',
  recurringTrustRequired: 'Merchant trust level does not allow recurring billing',
  recurringNotActive: 'Recurring schedule is not active',
  recurringNotPaused: 'Recurring schedule is not paused',
  recurringRunInProgress: 'A run of this recurring schedule is already in progress',
  recurringAmendmentPending: 'Recurring schedule already has a pending amendment',
} as const;

/** Sandbox test helpers: refusals of `POST /v1/sandbox/...`. */
export const SANDBOX_MSG = {
  customersListed: 'Sandbox customers',
  billingNotPending: 'Billing request is not pending',
  billingNotAwaitingApproval: "Billing request is not awaiting the customer's approval",
  billingExpired: 'Billing request expired',
  refundCompleted: 'Refund completed',
  refundFailed: 'Refund has failed and cannot be completed',
  settlementsRun: 'Settlement run completed',
  recurringRunDue: 'Recurring run is due now',
  recurringRunInProgress: MSG.recurringRunInProgress,
  /** A helper that keeps losing a race with concurrent writers (DESIGN 8.1: 409, never 5xx). */
  raceLost: 'Sandbox helper lost a race with a concurrent request; retry',
  testClockNotFound: 'Test clock not found',
  testClockAdvancing: 'Test clock is advancing; wait until it is ready',
} as const;
