/**
 * THE route table: the only list of the HTTP surface. The CDK stack creates one API
 * Gateway route and one Lambda per entry; the local server mounts the same entries; the
 * OpenAPI document is generated from them. Paths use API Gateway's `{param}` syntax.
 */
export type ParticipantKind = 'bank' | 'merchant' | 'provider' | 'operator';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  path: string;
  /** Handler module under functions/ (without extension); it exports `handler`. */
  handler: string;
  /**
   * A route with a path parameter: the message of its 404 for an unknown id (DESIGN 6.9, 8, 9),
   * which the pipeline also answers, before any DynamoDB request, for an id that cannot exist
   * (longer than MAX_ID_LENGTH, DESIGN 9.2).
   */
  notFound?: string;
  /**
   * Participant kinds allowed. A provider may call a route that allows `merchant` on
   * behalf of one of its merchants with the X-Entity-Id header. Empty = public (no key).
   */
  kinds: ParticipantKind[];
  /** Table access the function gets (least privilege). */
  access: 'read' | 'write';
  /** Route exists only in the sandbox stage (404 Route not found in live). */
  sandboxOnly?: boolean;
  /** Rate-limit class (limits per participant and class are configuration). */
  rateClass?: string;
  /**
   * What a signed-in person's role must allow (DESIGN 8.3; identity/roles.ts `rolesFor`).
   * Default: GET `read`, any other method `money`.
   */
  permission?: Permission;
  /**
   * `person`: API keys are refused (403 `This action requires a signed-in user`).
   * `applicant`: a signed-in person who need not be a member of any participant yet
   * (applications, accepting an invitation); the handler gets the person, no participant.
   */
  caller?: 'person' | 'applicant';
  /**
   * Open to a person who must use two-factor authentication and has not set it up yet (DESIGN
   * 10.3; identity/mfa.ts): reading oneself, signing out, and the approved applicant's last
   * look at their application before the dashboard sends them to Security. Every other route
   * answers them 403 `Set up two-factor authentication first`.
   */
  mfaExempt?: true;
  /**
   * A list (DESIGN 10.4): where its items are in `data` (`items`: the array's property, or
   * `null` when `data` is the array) and the item field `startingAfter` takes (`cursor`).
   * Published as the operation's `x-list`; the SDK's `paginate` follows it.
   */
  list?: { items: string | null; cursor: string };
  summary: string;
}

/**
 * A class of action a signed-in person's role must allow (DESIGN 8.3): `read`, `config`,
 * `money`, `team`. Which roles each allows: functions/identity/roles.ts (`rolesFor`).
 */
export type Permission = 'read' | 'config' | 'money' | 'team';

const M: ParticipantKind[] = ['merchant'];
const B: ParticipantKind[] = ['bank'];
const P: ParticipantKind[] = ['provider'];
const O: ParticipantKind[] = ['operator'];
const ANY: ParticipantKind[] = ['bank', 'merchant', 'provider'];

// biome-ignore format: one line per route keeps the HTTP surface readable as a table
export const ROUTES: Route[] = [
  // Operator (DESIGN 6.1)
  { method: 'GET', path: '/v1/operator/participants', handler: 'api/operator/list-participants', kinds: O, access: 'read', list: { items: 'participants', cursor: 'id' }, summary: 'List and search every participant' },
  { method: 'POST', path: '/v1/operator/participants', handler: 'api/operator/create-participant', kinds: O, access: 'write', summary: 'Create a bank, merchant or provider' },
  { method: 'POST', path: '/v1/operator/participants/{id}/keys', notFound: 'Participant not found', handler: 'api/operator/create-key', kinds: O, access: 'write', summary: 'Issue a new API key for a participant' },
  { method: 'DELETE', path: '/v1/operator/keys/{keyId}', notFound: 'API key not found', handler: 'api/operator/revoke-key', kinds: O, access: 'write', summary: 'Revoke an API key' },
  { method: 'PATCH', path: '/v1/operator/providers/{id}', notFound: 'Participant not found', handler: 'api/operator/update-provider', kinds: O, access: 'write', summary: "Set a provider's maxTrustLevel" },
  { method: 'GET', path: '/v1/operator/applications', handler: 'api/operator/list-applications', kinds: O, access: 'read', list: { items: 'applications', cursor: 'applicationId' }, summary: 'List business applications' },
  { method: 'POST', path: '/v1/operator/applications/{id}/approve', notFound: 'Application not found', handler: 'api/operator/approve-application', kinds: O, access: 'write', summary: 'Approve an application (creates the participant)' },
  { method: 'POST', path: '/v1/operator/applications/{id}/reject', notFound: 'Application not found', handler: 'api/operator/reject-application', kinds: O, access: 'write', summary: 'Reject an application' },

  // People: onboarding, keys, team, audit log (DESIGN 8.3)
  { method: 'POST', path: '/v1/onboarding/applications', handler: 'api/account/create-application', kinds: ANY, access: 'write', caller: 'applicant', summary: 'Apply to join as a merchant or provider' },
  { method: 'GET', path: '/v1/onboarding/applications/{id}', notFound: 'Application not found', handler: 'api/account/get-application', kinds: ANY, access: 'read', caller: 'applicant', mfaExempt: true, summary: 'Read your application' },
  { method: 'GET', path: '/v1/me', handler: 'api/account/me', kinds: ANY, access: 'read', caller: 'applicant', mfaExempt: true, summary: 'The signed-in person and their memberships' },
  { method: 'POST', path: '/v1/me/sign-out', handler: 'api/account/sign-out', kinds: ANY, access: 'write', caller: 'applicant', mfaExempt: true, summary: 'End this sign-in session' },
  { method: 'GET', path: '/v1/keys', handler: 'api/account/list-keys', kinds: ANY, access: 'read', caller: 'person', permission: 'config', list: { items: 'keys', cursor: 'keyId' }, summary: "List the participant's API keys" },
  { method: 'POST', path: '/v1/keys', handler: 'api/account/create-key', kinds: ANY, access: 'write', caller: 'person', permission: 'config', summary: 'Create an API key' },
  { method: 'DELETE', path: '/v1/keys/{keyId}', notFound: 'Key not found', handler: 'api/account/revoke-key', kinds: ANY, access: 'write', caller: 'person', permission: 'config', summary: 'Revoke an API key' },
  { method: 'GET', path: '/v1/team/members', handler: 'api/account/list-members', kinds: ANY, access: 'read', caller: 'person', permission: 'team', list: { items: 'members', cursor: 'userId' }, summary: "List the participant's team" },
  { method: 'POST', path: '/v1/team/invitations', handler: 'api/account/invite', kinds: ANY, access: 'write', caller: 'person', permission: 'team', summary: 'Invite a person to the team' },
  { method: 'GET', path: '/v1/team/invitations', handler: 'api/account/list-invitations', kinds: ANY, access: 'read', caller: 'person', permission: 'team', list: { items: 'invitations', cursor: 'invitationId' }, summary: "List the team's pending invitations" },
  { method: 'DELETE', path: '/v1/team/invitations/{invitationId}', notFound: 'Invitation not found', handler: 'api/account/revoke-invitation', kinds: ANY, access: 'write', caller: 'person', permission: 'team', summary: 'Withdraw a pending invitation' },
  { method: 'GET', path: '/v1/invitations/{token}', notFound: 'Invitation not found', handler: 'api/account/get-invitation', kinds: ANY, access: 'read', caller: 'applicant', summary: 'Read an invitation by its token' },
  { method: 'POST', path: '/v1/team/invitations/{token}/accept', notFound: 'Invitation not found', handler: 'api/account/accept-invitation', kinds: ANY, access: 'write', caller: 'applicant', summary: 'Accept an invitation' },
  { method: 'PATCH', path: '/v1/team/members/{userId}', notFound: 'Member not found', handler: 'api/account/update-member', kinds: ANY, access: 'write', caller: 'person', permission: 'team', summary: "Change a member's role" },
  { method: 'DELETE', path: '/v1/team/members/{userId}', notFound: 'Member not found', handler: 'api/account/remove-member', kinds: ANY, access: 'write', caller: 'person', permission: 'team', summary: 'Remove a member' },
  { method: 'GET', path: '/v1/audit-log', handler: 'api/account/audit-log', kinds: ANY, access: 'read', permission: 'team', list: { items: 'entries', cursor: 'id' }, summary: 'Who changed what' },
  { method: 'GET', path: '/v1/operator/ledger/trial-balance', handler: 'api/operator/trial-balance', kinds: O, access: 'read', summary: 'Trial balance of the ledger' },

  // Bank: customers and decisions
  { method: 'POST', path: '/v1/bank/customers', handler: 'api/bank/create-customers', kinds: B, access: 'write', rateClass: 'batch', summary: 'Create customers in a batch' },
  { method: 'GET', path: '/v1/bank/customers/batches/{batchId}', notFound: 'Batch not found', handler: 'api/bank/get-batch', kinds: B, access: 'read', summary: 'Read a customer batch result' },
  { method: 'POST', path: '/v1/bank/customer/device/link', handler: 'api/bank/link-device', kinds: B, access: 'write', summary: "Link a customer's device" },
  { method: 'GET', path: '/v1/bank/customer-decisions', handler: 'api/bank/list-decisions', kinds: B, access: 'read', list: { items: null, cursor: 'id' }, summary: "List the bank's customers' decisions" },
  { method: 'PUT', path: '/v1/bank/customer-decisions/{id}', notFound: 'Customer decision not found', handler: 'api/bank/update-decision', kinds: B, access: 'write', summary: 'Change a decision on the customer\'s behalf' },
  { method: 'GET', path: '/v1/bank/customer-decisions/{id}/history', notFound: 'Customer decision not found', handler: 'api/bank/decision-history', kinds: B, access: 'read', summary: "Every version of a customer's decision" },
  { method: 'GET', path: '/v1/bank/customers/{customerId}/consents', notFound: 'Customer not found', handler: 'api/bank/customer-consents', kinds: B, access: 'read', list: { items: 'consents', cursor: 'decisionId' }, summary: "Every standing consent of a customer across merchants, with what is left" },
  { method: 'GET', path: '/v1/bank/customer/subscriptions', handler: 'api/bank/list-subscriptions', kinds: B, access: 'read', list: { items: 'subscriptions', cursor: 'scheduleId' }, summary: "List the bank's customers' recurring schedules" },
  { method: 'POST', path: '/v1/bank/subscriptions/{scheduleId}/skip', notFound: 'Recurring schedule not found', handler: 'api/bank/skip-subscription', kinds: B, access: 'write', summary: "Skip the next run of a customer's schedule" },
  { method: 'POST', path: '/v1/bank/subscriptions/{scheduleId}/cancel', notFound: 'Recurring schedule not found', handler: 'api/bank/cancel-subscription', kinds: B, access: 'write', summary: "Cancel a customer's schedule" },
  { method: 'GET', path: '/v1/bank/settlement-reports', handler: 'api/bank/settlement-report', kinds: B, access: 'read', summary: "The bank's settlement report for a business day" },
  { method: 'POST', path: '/v1/billing/intent-response', handler: 'api/bank/intent-response', kinds: B, access: 'write', summary: "Return the customer's decision on an intent" },
  { method: 'POST', path: '/v1/billing/bank-response', handler: 'api/bank/bank-response', kinds: B, access: 'write', summary: 'Answer a billing request' },
  { method: 'POST', path: '/v1/billing/bank-responses', handler: 'api/bank/bank-responses', kinds: B, access: 'write', rateClass: 'batch', summary: 'Answer up to 100 billing requests at once' },
  // Disputes (DESIGN 9.4): the customer's bank opens and decides; the merchant answers
  { method: 'POST', path: '/v1/bank/disputes', handler: 'api/disputes/open', kinds: B, access: 'write', summary: 'Dispute a debit of one of your customers' },
  { method: 'GET', path: '/v1/bank/disputes', handler: 'api/disputes/bank-list', kinds: B, access: 'read', list: { items: 'disputes', cursor: 'disputeId' }, summary: 'List the disputes you opened' },
  { method: 'GET', path: '/v1/bank/disputes/{disputeId}', notFound: 'Dispute not found', handler: 'api/disputes/bank-get', kinds: B, access: 'read', summary: 'Read a dispute you opened' },
  { method: 'POST', path: '/v1/bank/disputes/{disputeId}/resolve', notFound: 'Dispute not found', handler: 'api/disputes/resolve', kinds: B, access: 'write', summary: 'Decide a dispute (won: the merchant keeps the money)' },
  { method: 'GET', path: '/v1/disputes', handler: 'api/disputes/list', kinds: M, access: 'read', list: { items: 'disputes', cursor: 'disputeId' }, summary: 'List disputes of your transactions' },
  { method: 'GET', path: '/v1/disputes/{disputeId}', notFound: 'Dispute not found', handler: 'api/disputes/get', kinds: M, access: 'read', summary: 'Read a dispute' },
  { method: 'POST', path: '/v1/disputes/{disputeId}/respond', notFound: 'Dispute not found', handler: 'api/disputes/respond', kinds: M, access: 'write', summary: 'Answer a dispute with evidence' },
  { method: 'POST', path: '/v1/disputes/{disputeId}/accept', notFound: 'Dispute not found', handler: 'api/disputes/accept', kinds: M, access: 'write', summary: 'Accept a dispute' },
  { method: 'POST', path: '/v1/billing/refund-response', handler: 'api/bank/refund-response', kinds: B, access: 'write', summary: 'Confirm (or fail) a refund the bank executed' },

  // Merchant: discovery, agreements, billing
  { method: 'GET', path: '/v1/balance/details', handler: 'api/merchant/balance', kinds: M, access: 'read', summary: "Read the merchant's balance" },
  { method: 'POST', path: '/v1/customer/device/lookup', handler: 'api/merchant/device-lookup', kinds: M, access: 'write', summary: 'Find a customer by device' },
  { method: 'GET', path: '/v1/customer/banks', handler: 'api/merchant/email-lookup', kinds: M, access: 'write', summary: "Find a customer's banks by email" },
  { method: 'POST', path: '/v1/billing/intent', handler: 'api/merchant/billing-intent', kinds: M, access: 'write', rateClass: 'billing', summary: 'Send billing intents' },
  { method: 'POST', path: '/v1/customer/bill', handler: 'api/merchant/bill', kinds: M, access: 'write', rateClass: 'billing', summary: 'Bill customers with agreement phrases' },
  { method: 'POST', path: '/v1/customer/pay', handler: 'api/merchant/pay', kinds: M, access: 'write', rateClass: 'billing', summary: 'Request a one-time payment' },
  { method: 'GET', path: '/v1/merchant/customer-decisions', handler: 'api/merchant/list-decisions', kinds: M, access: 'read', list: { items: null, cursor: 'id' }, summary: "List customers' decisions" },
  { method: 'GET', path: '/v1/customer-decisions/{id}', notFound: 'Customer decision not found', handler: 'api/merchant/get-decision', kinds: M, access: 'read', summary: 'Read one customer decision' },
  { method: 'GET', path: '/v1/customer-decisions/{id}/history', notFound: 'Customer decision not found', handler: 'api/merchant/decision-history', kinds: M, access: 'read', summary: 'Every version of a customer decision' },
  { method: 'GET', path: '/v1/merchant/retry-policy', handler: 'api/merchant/retry-policy', kinds: M, access: 'read', summary: 'Read the retry policy of failed recurring runs' },
  { method: 'PUT', path: '/v1/merchant/retry-policy', handler: 'api/merchant/set-retry-policy', kinds: M, access: 'write', permission: 'config', summary: 'Set the retry policy of failed recurring runs' },

  // Recurring schedules
  { method: 'POST', path: '/v1/billing/recurring/create', handler: 'api/recurring/create', kinds: M, access: 'write', rateClass: 'billing', summary: 'Create a recurring schedule' },
  { method: 'POST', path: '/v1/recurring/{scheduleId}/pause', notFound: 'Recurring schedule not found', handler: 'api/recurring/pause', kinds: M, access: 'write', summary: 'Pause a schedule' },
  { method: 'POST', path: '/v1/recurring/{scheduleId}/resume', notFound: 'Recurring schedule not found', handler: 'api/recurring/resume', kinds: M, access: 'write', summary: 'Resume a schedule' },
  { method: 'POST', path: '/v1/recurring/{scheduleId}/skip', notFound: 'Recurring schedule not found', handler: 'api/recurring/skip', kinds: M, access: 'write', summary: 'Skip the next run' },
  { method: 'GET', path: '/v1/recurring', handler: 'api/recurring/list', kinds: M, access: 'read', list: { items: 'schedules', cursor: 'scheduleId' }, summary: 'List schedules' },
  { method: 'GET', path: '/v1/recurring/{scheduleId}', notFound: 'Recurring schedule not found', handler: 'api/recurring/get', kinds: M, access: 'read', summary: 'Read a schedule' },
  { method: 'DELETE', path: '/v1/recurring/{scheduleId}', notFound: 'Recurring schedule not found', handler: 'api/recurring/cancel', kinds: M, access: 'write', summary: 'Cancel a schedule' },
  { method: 'PATCH', path: '/v1/recurring/{scheduleId}', notFound: 'Recurring schedule not found', handler: 'api/recurring/amend', kinds: M, access: 'write', summary: "Amend a schedule's terms (the customer's bank approves)" },

  // Transactions and refunds
  { method: 'GET', path: '/v1/transaction-history', handler: 'api/transactions/history', kinds: ['merchant', 'bank', 'provider'], access: 'read', list: { items: 'transactions', cursor: 'reference' }, summary: 'Transaction history' },
  { method: 'GET', path: '/v1/transaction-details', handler: 'api/transactions/details', kinds: ['merchant', 'bank', 'provider'], access: 'read', summary: 'Transaction details' },
  { method: 'POST', path: '/v1/refunds/initiate', handler: 'api/refunds/initiate', kinds: M, access: 'write', rateClass: 'billing', summary: 'Start a refund' },
  { method: 'GET', path: '/v1/refunds/{refundId}/status', notFound: 'Refund not found', handler: 'api/refunds/status', kinds: M, access: 'read', summary: 'Read a refund' },

  // Reconciliation (DESIGN 8.8)
  { method: 'GET', path: '/v1/settlements', handler: 'api/settlements/list', kinds: M, access: 'read', list: { items: 'settlements', cursor: 'settlementId' }, summary: 'List settlements' },
  { method: 'GET', path: '/v1/settlements/{id}', notFound: 'Settlement not found', handler: 'api/settlements/get', kinds: M, access: 'read', summary: 'Read a settlement and its lines' },
  // An export moves no money: every role that may read more than GETs (owner, admin, developer) may ask for one, in live too.
  { method: 'POST', path: '/v1/exports', handler: 'api/exports/create', kinds: M, access: 'write', permission: 'config', summary: 'Start a CSV export' },
  { method: 'GET', path: '/v1/exports/{id}', notFound: 'Export not found', handler: 'api/exports/get', kinds: M, access: 'read', summary: 'Read an export and its download URL' },

  // Provider: merchants and trust
  { method: 'POST', path: '/v1/provider/merchants', handler: 'api/provider/create-merchants', kinds: P, access: 'write', rateClass: 'batch', summary: 'Create merchants in a batch' },
  { method: 'GET', path: '/v1/provider/merchants', handler: 'api/provider/list-merchants', kinds: P, access: 'read', list: { items: 'merchants', cursor: 'id' }, summary: "List the provider's merchants" },
  { method: 'GET', path: '/v1/provider/merchant', handler: 'api/provider/get-merchant', kinds: P, access: 'read', summary: 'Read a merchant' },
  { method: 'PATCH', path: '/v1/provider/merchant', handler: 'api/provider/update-merchant', kinds: P, access: 'write', summary: 'Update a merchant' },
  { method: 'PATCH', path: '/v1/provider/merchant/trust', handler: 'api/provider/update-trust', kinds: P, access: 'write', summary: "Set a merchant's trust" },
  { method: 'GET', path: '/v1/provider/merchant/trust', handler: 'api/provider/get-trust', kinds: P, access: 'read', summary: "Read a merchant's trust" },
  { method: 'GET', path: '/v1/provider/merchant/trust/multiple', handler: 'api/provider/list-trust', kinds: P, access: 'read', list: { items: null, cursor: 'entityId' }, summary: "List merchants' trust" },
  { method: 'GET', path: '/v1/provider/merchant/trust/device-permission', handler: 'api/provider/device-permission', kinds: P, access: 'read', summary: 'Check device lookup permission' },
  { method: 'POST', path: '/v1/provider/merchant/trust/validate', handler: 'api/provider/validate-trust', kinds: P, access: 'read', permission: 'config', summary: "Check a merchant's trust level" },

  // Webhooks (any participant; a provider manages a merchant's with X-Entity-Id)
  { method: 'POST', path: '/v1/webhooks/endpoints', handler: 'api/webhooks/create-endpoint', kinds: ANY, access: 'write', permission: 'config', summary: 'Add a webhook endpoint' },
  { method: 'GET', path: '/v1/webhooks/endpoints', handler: 'api/webhooks/list-endpoints', kinds: ANY, access: 'read', list: { items: 'endpoints', cursor: 'id' }, summary: 'List webhook endpoints' },
  { method: 'DELETE', path: '/v1/webhooks/endpoints/{id}', notFound: 'Webhook endpoint not found', handler: 'api/webhooks/delete-endpoint', kinds: ANY, access: 'write', permission: 'config', summary: 'Remove a webhook endpoint' },
  { method: 'POST', path: '/v1/webhooks/endpoints/{id}/rotate-secret', notFound: 'Webhook endpoint not found', handler: 'api/webhooks/rotate-secret', kinds: ANY, access: 'write', permission: 'config', summary: "Rotate an endpoint's secret" },
  { method: 'POST', path: '/v1/webhooks/endpoints/{id}/test', notFound: 'Webhook endpoint not found', handler: 'api/webhooks/test-endpoint', kinds: ANY, access: 'write', permission: 'config', summary: 'Send a webhook.test event' },
  { method: 'GET', path: '/v1/webhooks/deliveries', handler: 'api/webhooks/list-deliveries', kinds: ANY, access: 'read', list: { items: 'deliveries', cursor: 'id' }, summary: 'List webhook deliveries' },
  { method: 'GET', path: '/v1/webhooks/deliveries/{id}', notFound: 'Delivery not found', handler: 'api/webhooks/get-delivery', kinds: ANY, access: 'read', summary: 'Read a delivery with its requests and answers' },
  { method: 'POST', path: '/v1/webhooks/deliveries/{id}/replay', notFound: 'Delivery not found', handler: 'api/webhooks/replay-delivery', kinds: ANY, access: 'write', permission: 'config', summary: 'Re-send a delivery now' },

  // Events (DESIGN 8.2): what was sent to the caller, for 30 days
  { method: 'GET', path: '/v1/events', handler: 'api/events/list', kinds: ANY, access: 'read', list: { items: 'events', cursor: 'id' }, summary: 'List events sent to the caller' },
  { method: 'GET', path: '/v1/events/{id}', notFound: 'Event not found', handler: 'api/events/get', kinds: ANY, access: 'read', summary: 'Read an event and its deliveries' },

  // Finding things (DESIGN 9.3)
  { method: 'GET', path: '/v1/search', handler: 'api/search/search', kinds: ANY, access: 'read', summary: 'Find anything of yours by its id, a customer e-mail or a clientRef' },
  { method: 'GET', path: '/v1/reports/volume', handler: 'api/reports/volume', kinds: ['merchant', 'bank', 'provider'], access: 'read', summary: 'Succeeded debits, refunds and disputes per Lagos day' },

  // Sandbox test helpers (sandbox stage only)
  { method: 'GET', path: '/v1/sandbox/customers', handler: 'api/sandbox/customers', kinds: M, access: 'read', sandboxOnly: true, summary: "The simulated bank's magic customers" },
  { method: 'POST', path: '/v1/sandbox/recurring/{scheduleId}/run', notFound: 'Recurring schedule not found', handler: 'api/sandbox/run-recurring', kinds: M, access: 'write', sandboxOnly: true, summary: 'Make the next run due now' },
  { method: 'POST', path: '/v1/sandbox/billing-requests/{id}/expire', notFound: 'Billing request not found', handler: 'api/sandbox/expire-billing', kinds: M, access: 'write', sandboxOnly: true, summary: 'Expire a pending approval now' },
  { method: 'POST', path: '/v1/sandbox/settlements/run', handler: 'api/sandbox/run-settlements', kinds: M, access: 'write', sandboxOnly: true, summary: 'Settle all due funds now' },
  { method: 'POST', path: '/v1/sandbox/transactions/{reference}/dispute', notFound: 'Transaction not found', handler: 'api/sandbox/dispute-transaction', kinds: M, access: 'write', sandboxOnly: true, summary: "Have the customer's bank dispute a transaction now" },
  { method: 'POST', path: '/v1/sandbox/refunds/{refundId}/complete', notFound: 'Refund not found', handler: 'api/sandbox/complete-refund', kinds: M, access: 'write', sandboxOnly: true, summary: 'Finish a refund now' },
  { method: 'POST', path: '/v1/sandbox/test-clocks', handler: 'api/sandbox/create-test-clock', kinds: M, access: 'write', sandboxOnly: true, summary: 'Create a test clock' },
  { method: 'GET', path: '/v1/sandbox/test-clocks/{clockId}', notFound: 'Test clock not found', handler: 'api/sandbox/get-test-clock', kinds: M, access: 'read', sandboxOnly: true, summary: 'Read a test clock' },
  { method: 'POST', path: '/v1/sandbox/test-clocks/{clockId}/advance', notFound: 'Test clock not found', handler: 'api/sandbox/advance-test-clock', kinds: M, access: 'write', sandboxOnly: true, summary: 'Advance a test clock (runs what falls due)' },
  { method: 'DELETE', path: '/v1/sandbox/test-clocks/{clockId}', notFound: 'Test clock not found', handler: 'api/sandbox/delete-test-clock', kinds: M, access: 'write', sandboxOnly: true, summary: 'Delete a test clock' },

  // Documentation (public)
  { method: 'GET', path: '/v1/openapi.json', handler: 'api/docs/openapi', kinds: [], access: 'read', summary: 'OpenAPI 3.1 document' },
  { method: 'GET', path: '/docs', handler: 'api/docs/page', kinds: [], access: 'read', summary: 'API reference page' },
];

/** The longest path segment or id header (`X-Entity-Id`, `X-Participant-Id`, `X-Test-Clock`) that can name anything (DESIGN 9.2). */
export const MAX_ID_LENGTH = 128;

/** Handler for any request that matches no route (API Gateway `$default`). */
export const NOT_FOUND_HANDLER = 'api/not-found';

export const routeKey = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path}`;

export function routesFor(stage: 'sandbox' | 'live'): Route[] {
  return ROUTES.filter((r) => !r.sandboxOnly || stage === 'sandbox');
}

const byKey = new Map(ROUTES.map((r) => [routeKey(r), r]));
export function findRoute(key: string): Route | undefined {
  return byKey.get(key);
}

/**
 * Whether a concrete path fits a route template (`{param}` segments match any non-empty
 * segment); the raw (still percent-encoded) parameters and the count of literal segments.
 */
function matchPath(template: string, parts: string[]): { raw: Record<string, string>; literals: number } | undefined {
  const tpl = template.split('/');
  if (tpl.length !== parts.length) return undefined;
  const raw: Record<string, string> = {};
  let literals = 0;
  for (let i = 0; i < tpl.length; i++) {
    const t = tpl[i]!;
    const p = parts[i]!;
    if (t.startsWith('{') && t.endsWith('}')) {
      if (p === '') return undefined;
      raw[t.slice(1, -1)] = p;
    } else if (t === p) literals++;
    else return undefined;
  }
  return { raw, literals };
}

/**
 * A path segment as API Gateway passes it in `pathParameters`: percent-decoded, or as sent
 * when its percent-encoding is malformed (`%E0%A4%A`, `%`). Never throws: such an id names
 * nothing, so the handler answers the resource's 404 (DESIGN 8.1), not a 5xx.
 */
export function decodePathSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Match a concrete method + path against the table (used by the local server). */
export function matchRoute<R extends Pick<Route, 'method' | 'path'>>(
  routes: R[],
  method: string,
  path: string,
): { route: R; params: Record<string, string> } | undefined {
  const parts = path.split('/');
  let best: { route: R; raw: Record<string, string>; literals: number } | undefined;
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = matchPath(route.path, parts);
    // Like API Gateway, the most specific (most literal segments) route wins.
    if (m && (!best || m.literals > best.literals)) best = { route, ...m };
  }
  if (!best) return undefined;
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(best.raw)) params[k] = decodePathSegment(v);
  return { route: best.route, params };
}

/**
 * The methods the table serves on a concrete path, alphabetical (DESIGN 8.2: a known path
 * with a wrong method is 405 with `Allow`). Empty when no route has that path.
 */
export function allowedMethods(routes: Route[], path: string): HttpMethod[] {
  const parts = path.split('/');
  const methods = new Set(routes.filter((r) => matchPath(r.path, parts)).map((r) => r.method));
  return [...methods].sort();
}
