/**
 * Isolation matrix (reliability suite 2; DESIGN 6.2), generated from THE route
 * table: every route that takes an id (a path parameter, or an id-like field of its body or
 * query schema) has a fixture that creates the resource for group A through the real
 * flows; then EVERY other participant calls it: group B's merchant, bank and provider, a
 * merchant of no provider, a provider acting for its own merchant, a provider acting for a
 * merchant that is not its own, the same provider without X-Entity-Id, the related bank of
 * the wrong kind, and the operator. Each must get 403 `Forbidden for this participant type`
 * (or 404 / the fixture's refusal, or an empty list), never data: the response contains none
 * of group A's ids, references, phrases or markers beyond what the caller sent, and the
 * table is unchanged. The owner then makes the same call successfully (a control: the
 * request was well formed).
 *
 * A new route that takes an id fails `every id-taking route has a fixture` until one is
 * added below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHandler } from '../../local/lambda';
import { MSG } from '../../functions/platform/errors';
import { lagosDate } from '../../functions/domain/lagos-time';
import { ROUTES, routeKey, type Route } from '../../functions/routes';
import { startTestApp, type TestApp } from '../support/app';
import { bankResponse, bill, pay, webhook } from '../support/flows';
import { diffSnapshots, snapshotTable } from '../support/fuzz';
import { startReceiver, type Receiver } from '../../local/receiver';
import { buildGroup, expectOk, pathFor, secretsOf, type Group } from '../support/reliability-world';
import { applicationBody, personCaller, signUpAndIn, type SignedIn } from '../support/people';

let t: TestApp;
let rx: Receiver;
let A: Group;
let B: Group;
let C: { id: string; apiKey: string };

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000' });
  rx = await startReceiver();
  A = await buildGroup(t, rx, 'iso-a');
  B = await buildGroup(t, rx, 'iso-b');
  C = await t.participant('merchant');
}, 120_000);

afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

// ---------------------------------------------------------------------------------------
// Callers

type Role =
  | 'merchantA'
  | 'providerA'
  | 'providerA:merchantA'
  | 'bankA'
  | 'merchantB'
  | 'providerB'
  | 'providerB:merchantB'
  | 'providerB:merchantA'
  | 'providerA:merchantB'
  | 'bankB'
  | 'merchantC'
  | 'operator';

const ROLES: Role[] = [
  'merchantA',
  'providerA',
  'providerA:merchantA',
  'bankA',
  'merchantB',
  'providerB',
  'providerB:merchantB',
  'providerB:merchantA',
  'providerA:merchantB',
  'bankB',
  'merchantC',
  'operator',
];

function credentials(role: Role): {
  key: string;
  headers: Record<string, string>;
  kind: 'merchant' | 'bank' | 'provider' | 'operator';
  entity?: { id: string; providerId: string };
} {
  const [who, entity] = role.split(':') as [string, string | undefined];
  const groups: Record<string, Group> = { A, B };
  const groupOf = (name: string) => groups[name.slice(-1)]!;
  if (who === 'operator') return { key: t.operatorKey, headers: {}, kind: 'operator' };
  if (who === 'merchantC') return { key: C.apiKey, headers: {}, kind: 'merchant' };
  if (who.startsWith('merchant')) return { key: groupOf(who).merchant.apiKey, headers: {}, kind: 'merchant' };
  if (who.startsWith('bank')) return { key: groupOf(who).bank.apiKey, headers: {}, kind: 'bank' };
  const provider = groupOf(who).provider;
  if (!entity) return { key: provider.apiKey, headers: {}, kind: 'provider' };
  const merchant = groupOf(entity).merchant;
  return {
    key: provider.apiKey,
    headers: { 'x-entity-id': merchant.id },
    kind: 'provider',
    entity: { id: merchant.id, providerId: groupOf(entity).provider.id },
  };
}

type Outcome = 'forbidden' | 'entity_required' | 'merchant_not_found' | 'resource';

/**
 * Who the caller is on this route once the pipeline has run: a provider with X-Entity-Id
 * acts as that merchant only on routes that allow merchants (elsewhere the header is
 * ignored and it is itself).
 */
function principalOf(route: Route, role: Role): string {
  const [who, entity] = role.split(':') as [string, string | undefined];
  if (who.startsWith('provider') && entity && route.kinds.includes('merchant'))
    return who.slice(-1) === entity.slice(-1) ? entity : `${who}->${entity}`;
  return who;
}

/** What the pipeline does with this caller before the handler looks at the resource. */
function gate(route: Route, role: Role): Outcome {
  const c = credentials(role);
  const kinds = route.kinds;
  if (c.kind === 'provider' && c.entity && kinds.includes('merchant')) {
    // 'providerX:merchantY' acts for merchant Y only when Y is X's own merchant.
    const [who, entity] = role.split(':') as [string, string];
    return who.slice(-1) === entity.slice(-1) ? 'resource' : 'merchant_not_found';
  }
  if (kinds.includes(c.kind)) return 'resource';
  if (c.kind === 'provider' && kinds.includes('merchant')) return 'entity_required';
  return 'forbidden';
}

// ---------------------------------------------------------------------------------------
// Fixtures: one per id-taking route

interface Req {
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

interface Fixture {
  /** Principals that may see or act on the resource (see principalOf); the first one runs the control call. */
  owners: string[];
  /** 404 message for another participant of an allowed kind. */
  notFound?: string;
  /** A list filtered by the id: another participant gets 200 with nothing of group A. */
  list?: boolean;
  /** Other refusals that are fine for another participant of an allowed kind. */
  refusals?: { status: number; message: string }[];
  /** Makes the resource (fresh when the call changes it) and the request. */
  prepare(route: Route): Promise<Req>;
  /** The owner's status (default: any 2xx). */
  control?: number[];
}

const M_OWNERS = ['merchantA'];
const B_OWNERS = ['bankA'];
const P_OWNERS = ['providerA'];
const O_OWNERS = ['operator'];

const path = (route: Route, override: Record<string, string> = {}) => pathFor(route, A, override);

async function freshPending(): Promise<string> {
  const r = await pay(t, A.merchant, [A.lookupPhrase], 3, { description: `${A.secret} isolation pay` });
  expectOk(r, 201, 'pay');
  return r.body[0].billingRequestId;
}
async function freshRefund(): Promise<string> {
  const r = await t.call('POST', '/v1/refunds/initiate', {
    key: A.merchant.apiKey,
    body: { reference: A.paid.reference, amount: 0.05, reason: `${A.secret} isolation` },
  });
  expectOk(r, 201, 'refund');
  return r.body.data.refundId;
}
async function freshDispute(): Promise<string> {
  const r = await t.call('POST', '/v1/bank/disputes', {
    key: A.bank.apiKey,
    body: { reference: A.paid.reference, reason: 'other', amount: 0.01 },
  });
  expectOk(r, 201, 'dispute');
  return r.body.data.disputeId;
}
/** A captured bill of its own (the sandbox dispute helper takes all that is left of a transaction). */
async function freshPaid(): Promise<string> {
  const b = await bill(t, A.merchant, [A.agreementPhrase], 2, { description: `${A.secret} isolation bill` });
  expectOk(b, 201, 'bill');
  expectOk(await bankResponse(t, A.bank, b.body[0].billingRequestId, 'approve_recurring'), 200, 'bank approves');
  return b.body[0].reference;
}
async function freshSchedule(): Promise<string> {
  const r = await t.call('POST', '/v1/billing/recurring/create', {
    key: A.merchant.apiKey,
    body: {
      customerId: A.customerId,
      agreementPhrase: A.agreementPhrase,
      amount: 2,
      currency: 'NGN',
      frequency: 'monthly',
      startDate: '2031-03-01T09:00:00.000Z',
      description: `${A.secret} iso`,
    },
  });
  expectOk(r, 201, 'schedule');
  return r.body.data.scheduleId;
}
async function freshClock(): Promise<string> {
  const r = await t.call('POST', '/v1/sandbox/test-clocks', {
    key: A.merchant.apiKey,
    body: { frozenTime: '2031-01-01T00:00:00.000Z', name: `${A.secret} clock` },
  });
  expectOk(r, 201, 'test clock');
  return r.body.data.clockId;
}
async function freshEndpoint(): Promise<string> {
  return (await webhook(t, rx, A.merchant, { label: 'iso-fresh', events: ['billing.response'] })).endpointId;
}

/** Group A's settlement (its captured bill settled through the sandbox helper, once). */
let settled: string | undefined;
async function settlementOfA(): Promise<string> {
  if (settled) return settled;
  expectOk(await t.call('POST', '/v1/sandbox/settlements/run', { key: A.merchant.apiKey, body: {} }), 200, 'settle');
  const list = await t.call('GET', '/v1/settlements', { key: A.merchant.apiKey });
  expectOk(list, 200, 'settlements');
  settled = list.body.data.settlements[0].settlementId as string;
  return settled;
}

const FIXTURES: Record<string, Fixture> = {
  // Operator API: only the operator.
  'POST /v1/operator/participants': {
    owners: O_OWNERS,
    prepare: async () => ({
      path: '/v1/operator/participants',
      body: {
        type: 'merchant',
        name: 'Iso',
        email: `iso-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
        providerId: A.provider.id,
      },
    }),
  },
  'GET /v1/operator/participants': {
    owners: O_OWNERS,
    prepare: async () => ({ path: '/v1/operator/participants', query: { q: A.merchant.id, type: 'merchant' } }),
  },
  'POST /v1/operator/participants/{id}/keys': { owners: O_OWNERS, prepare: async (r) => ({ path: path(r) }) },
  'DELETE /v1/operator/keys/{keyId}': {
    owners: O_OWNERS,
    prepare: async (r) => {
      const k = await t.call('POST', `/v1/operator/participants/${A.merchant.id}/keys`, { key: t.operatorKey });
      expectOk(k, 201, 'key');
      return { path: path(r, { keyId: k.body.data.keyId }) };
    },
  },
  'PATCH /v1/operator/providers/{id}': { owners: O_OWNERS, prepare: async (r) => ({ path: path(r), body: { maxTrustLevel: 'premium' } }) },
  // Applications: the sandbox approves at once, so the operator's control decision is 409 (already decided).
  'POST /v1/operator/applications/{id}/approve': {
    owners: O_OWNERS,
    control: [409],
    prepare: async (r) => ({ path: path(r, { id: P.applicationId }) }),
  },
  'POST /v1/operator/applications/{id}/reject': {
    owners: O_OWNERS,
    control: [409],
    prepare: async (r) => ({ path: path(r, { id: P.applicationId }), body: { reason: 'isolation' } }),
  },
  'GET /v1/operator/ledger/trial-balance': { owners: O_OWNERS, prepare: async () => ({ path: '/v1/operator/ledger/trial-balance' }) },

  // Bank resources.
  'GET /v1/bank/customers/batches/{batchId}': { owners: B_OWNERS, notFound: MSG.batchNotFound, prepare: async (r) => ({ path: path(r) }) },
  'POST /v1/bank/customer/device/link': {
    owners: B_OWNERS,
    notFound: MSG.customerNotFound,
    prepare: async () => ({
      path: '/v1/bank/customer/device/link',
      body: { customerId: A.customerId, phrase: 'p', deviceId: `iso-dev-${Date.now()}` },
    }),
  },
  'GET /v1/bank/customer-decisions': {
    owners: B_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/bank/customer-decisions', query: { customerId: A.customerId, entityId: A.merchant.id } }),
  },
  'PUT /v1/bank/customer-decisions/{id}': {
    owners: B_OWNERS,
    notFound: MSG.decisionNotFound,
    prepare: async (r) => ({
      path: path(r),
      body: { customerDecision: 'approve_recurring', spendingLimits: { single: 1_000, daily: 5_000 } },
    }),
  },
  'GET /v1/bank/settlement-reports': {
    // Each bank reads its own customers' day: another bank gets 200 with none of group A's.
    owners: B_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/bank/settlement-reports', query: { businessDate: lagosDate(new Date()) } }),
  },
  'GET /v1/bank/customer/subscriptions': {
    owners: B_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/bank/customer/subscriptions', query: { customerId: A.customerId, entityId: A.merchant.id } }),
  },
  // The bank acts for its customer (DESIGN 8.5): another bank's skip or cancel is 404, and changes nothing.
  'POST /v1/bank/subscriptions/{scheduleId}/skip': {
    owners: B_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => ({ path: path(r, { scheduleId: await freshSchedule() }), body: { reason: 'isolation' } }),
  },
  'POST /v1/bank/subscriptions/{scheduleId}/cancel': {
    owners: B_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => ({ path: path(r, { scheduleId: await freshSchedule() }), body: { reason: 'isolation' } }),
  },
  'POST /v1/billing/intent-response': {
    owners: B_OWNERS,
    notFound: MSG.customerNotFound,
    prepare: async () => {
      const i = await t.call('POST', '/v1/billing/intent', {
        key: A.merchant.apiKey,
        body: { lookupPhrases: [A.lookupPhrase], currency: 'NGN', description: `${A.secret} iso intent` },
      });
      expectOk(i, 200, 'intent');
      return {
        path: '/v1/billing/intent-response',
        body: {
          customerId: A.customerId,
          entityId: A.merchant.id,
          lookupPhrase: A.lookupPhrase,
          customerDecision: 'approve_recurring',
          spendingLimits: { single: 1_000, daily: 5_000 },
          intentId: i.body[0].intentId,
        },
      };
    },
  },
  'POST /v1/billing/bank-response': {
    owners: B_OWNERS,
    notFound: 'Billing request not found',
    prepare: async () => ({
      path: '/v1/billing/bank-response',
      body: { billingRequestId: await freshPending(), action: 'approve_once', bankTransactionId: `BTX-iso-${Date.now()}` },
    }),
  },
  // Batch answers: another bank's element is that element's 404 (the array's common status when it is the only one).
  'POST /v1/billing/bank-responses': {
    owners: B_OWNERS,
    notFound: 'Billing request not found',
    prepare: async () => ({
      path: '/v1/billing/bank-responses',
      body: { responses: [{ billingRequestId: await freshPending(), action: 'approve_once', bankTransactionId: `BTX-iso-${Date.now()}` }] },
    }),
  },
  'POST /v1/billing/refund-response': {
    owners: B_OWNERS,
    notFound: 'Refund not found',
    prepare: async () => ({ path: '/v1/billing/refund-response', body: { refundId: await freshRefund(), status: 'processing' } }),
  },

  // Merchant resources.
  'GET /v1/customer-decisions/{id}': { owners: M_OWNERS, notFound: MSG.decisionNotFound, prepare: async (r) => ({ path: path(r) }) },
  'GET /v1/customer-decisions/{id}/history': {
    owners: M_OWNERS,
    notFound: MSG.decisionNotFound,
    prepare: async (r) => ({ path: path(r) }),
  },
  'GET /v1/bank/customer-decisions/{id}/history': {
    owners: B_OWNERS,
    notFound: MSG.decisionNotFound,
    prepare: async (r) => ({ path: path(r) }),
  },
  // DESIGN 10.5: another bank's customer is 404, as an unknown one.
  'GET /v1/bank/customers/{customerId}/consents': {
    owners: B_OWNERS,
    notFound: MSG.customerNotFound,
    prepare: async (r) => ({ path: path(r) }),
  },
  'GET /v1/merchant/customer-decisions': {
    owners: M_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/merchant/customer-decisions', query: { customerId: A.customerId } }),
  },
  'POST /v1/billing/recurring/create': {
    owners: M_OWNERS,
    refusals: [
      { status: 400, message: MSG.recurringPermissionRequired },
      { status: 403, message: MSG.recurringTrustRequired },
    ],
    prepare: async () => ({
      path: '/v1/billing/recurring/create',
      body: {
        customerId: A.customerId,
        agreementPhrase: A.agreementPhrase,
        amount: 2,
        currency: 'NGN',
        frequency: 'monthly',
        startDate: '2031-04-01T09:00:00.000Z',
        description: 'iso create',
      },
    }),
  },
  'POST /v1/recurring/{scheduleId}/pause': {
    owners: M_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => ({ path: path(r, { scheduleId: await freshSchedule() }), body: {} }),
  },
  'POST /v1/recurring/{scheduleId}/resume': {
    owners: M_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => {
      const id = await freshSchedule();
      expectOk(await t.call('POST', `/v1/recurring/${id}/pause`, { key: A.merchant.apiKey, body: {} }), 200, 'pause');
      return { path: path(r, { scheduleId: id }), body: {} };
    },
  },
  'POST /v1/recurring/{scheduleId}/skip': {
    owners: M_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => ({ path: path(r, { scheduleId: await freshSchedule() }), body: {} }),
  },
  'GET /v1/recurring': {
    owners: M_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/recurring', query: { customerId: A.customerId } }),
  },
  'GET /v1/recurring/{scheduleId}': { owners: M_OWNERS, notFound: MSG.recurringNotFound, prepare: async (r) => ({ path: path(r) }) },
  'DELETE /v1/recurring/{scheduleId}': {
    owners: M_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => ({ path: path(r, { scheduleId: await freshSchedule() }) }),
  },
  'PATCH /v1/recurring/{scheduleId}': {
    owners: M_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => ({ path: path(r, { scheduleId: await freshSchedule() }), body: { amount: 7.5 } }),
  },
  'GET /v1/transaction-details': {
    // The merchant, its provider (as itself or for the merchant) and the customer's bank see it.
    owners: ['merchantA', 'providerA', 'bankA'],
    notFound: 'Transaction not found',
    prepare: async () => ({ path: '/v1/transaction-details', query: { reference: A.paid.reference } }),
  },
  'POST /v1/refunds/initiate': {
    owners: M_OWNERS,
    notFound: 'Transaction not found',
    prepare: async () => ({ path: '/v1/refunds/initiate', body: { reference: A.paid.reference, amount: 0.01, reason: 'iso' } }),
  },
  'GET /v1/refunds/{refundId}/status': { owners: M_OWNERS, notFound: 'Refund not found', prepare: async (r) => ({ path: path(r) }) },
  // Disputes (DESIGN 9.4): the customer's bank opens, reads and resolves; the merchant (its provider for it) reads and answers.
  'POST /v1/bank/disputes': {
    owners: B_OWNERS,
    notFound: 'Transaction not found',
    prepare: async () => ({ path: '/v1/bank/disputes', body: { reference: A.paid.reference, reason: 'duplicate', amount: 0.01 } }),
  },
  'GET /v1/bank/disputes': {
    owners: B_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/bank/disputes', query: { reference: A.paid.reference } }),
  },
  'GET /v1/bank/disputes/{disputeId}': { owners: B_OWNERS, notFound: 'Dispute not found', prepare: async (r) => ({ path: path(r) }) },
  'POST /v1/bank/disputes/{disputeId}/resolve': {
    owners: B_OWNERS,
    notFound: 'Dispute not found',
    prepare: async (r) => ({ path: path(r, { disputeId: await freshDispute() }), body: { outcome: 'won' } }),
  },
  'GET /v1/disputes': {
    owners: M_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/disputes', query: { reference: A.paid.reference } }),
  },
  'GET /v1/disputes/{disputeId}': { owners: M_OWNERS, notFound: 'Dispute not found', prepare: async (r) => ({ path: path(r) }) },
  'POST /v1/disputes/{disputeId}/respond': {
    owners: M_OWNERS,
    notFound: 'Dispute not found',
    prepare: async (r) => ({ path: path(r, { disputeId: await freshDispute() }), body: { evidence: { text: `${A.secret} evidence` } } }),
  },
  'POST /v1/disputes/{disputeId}/accept': {
    owners: M_OWNERS,
    notFound: 'Dispute not found',
    prepare: async (r) => ({ path: path(r, { disputeId: await freshDispute() }), body: {} }),
  },
  'GET /v1/settlements': {
    owners: M_OWNERS,
    list: true,
    prepare: async () => {
      await settlementOfA();
      return { path: '/v1/settlements' };
    },
  },
  'POST /v1/exports': {
    owners: M_OWNERS,
    notFound: 'Settlement not found',
    prepare: async () => ({ path: '/v1/exports', body: { kind: 'settlement', settlementId: await settlementOfA() } }),
  },
  'GET /v1/exports/{id}': {
    owners: M_OWNERS,
    notFound: 'Export not found',
    prepare: async (r) => {
      const e = await t.call('POST', '/v1/exports', {
        key: A.merchant.apiKey,
        body: { kind: 'settlement', settlementId: await settlementOfA() },
      });
      expectOk(e, 202, 'export');
      return { path: path(r, { id: e.body.data.exportId }) };
    },
  },
  'GET /v1/settlements/{id}': {
    owners: M_OWNERS,
    notFound: 'Settlement not found',
    prepare: async (r) => ({ path: path(r, { id: await settlementOfA() }) }),
  },

  // Provider resources (entityId of its merchant).
  'GET /v1/provider/merchants': {
    owners: P_OWNERS,
    list: true,
    prepare: async () => ({ path: '/v1/provider/merchants', query: { ids: A.merchant.id } }),
  },
  'GET /v1/provider/merchant': {
    owners: P_OWNERS,
    notFound: MSG.merchantNotFound,
    prepare: async () => ({ path: '/v1/provider/merchant', query: { entityId: A.merchant.id } }),
  },
  'PATCH /v1/provider/merchant': {
    owners: P_OWNERS,
    notFound: MSG.merchantNotFound,
    prepare: async () => ({ path: '/v1/provider/merchant', body: { entityId: A.merchant.id, description: 'isolation' } }),
  },
  'PATCH /v1/provider/merchant/trust': {
    owners: P_OWNERS,
    notFound: MSG.merchantNotFound,
    prepare: async () => ({
      path: '/v1/provider/merchant/trust',
      body: { entityId: A.merchant.id, trusted: true, trustLevel: 'premium', deviceLookupEnabled: true },
    }),
  },
  'GET /v1/provider/merchant/trust': {
    owners: P_OWNERS,
    notFound: MSG.merchantNotFound,
    prepare: async () => ({ path: '/v1/provider/merchant/trust', query: { entityId: A.merchant.id } }),
  },
  'GET /v1/provider/merchant/trust/device-permission': {
    owners: P_OWNERS,
    notFound: MSG.merchantNotFound,
    prepare: async () => ({ path: '/v1/provider/merchant/trust/device-permission', query: { entityId: A.merchant.id } }),
  },
  'POST /v1/provider/merchant/trust/validate': {
    owners: P_OWNERS,
    notFound: MSG.merchantNotFound,
    prepare: async () => ({ path: '/v1/provider/merchant/trust/validate', body: { entityId: A.merchant.id, requiredTrustLevel: 'basic' } }),
  },

  // Webhooks (any kind; a provider manages its merchant's with X-Entity-Id).
  'DELETE /v1/webhooks/endpoints/{id}': {
    owners: M_OWNERS,
    notFound: MSG.webhookEndpointNotFound,
    prepare: async (r) => ({ path: path(r, { id: await freshEndpoint() }) }),
  },
  'POST /v1/webhooks/endpoints/{id}/rotate-secret': {
    owners: M_OWNERS,
    notFound: MSG.webhookEndpointNotFound,
    prepare: async (r) => ({ path: path(r, { id: await freshEndpoint() }) }),
  },
  'POST /v1/webhooks/endpoints/{id}/test': {
    owners: M_OWNERS,
    notFound: MSG.webhookEndpointNotFound,
    prepare: async (r) => ({ path: path(r, { id: await freshEndpoint() }) }),
  },
  'POST /v1/webhooks/deliveries/{id}/replay': {
    owners: M_OWNERS,
    notFound: MSG.deliveryNotFound,
    prepare: async (r) => ({ path: path(r) }),
  },

  'GET /v1/webhooks/deliveries/{id}': { owners: M_OWNERS, notFound: MSG.deliveryNotFound, prepare: async (r) => ({ path: path(r) }) },

  // One customer's transactions: each caller's own list filtered by A's customer (others: an empty list).
  'GET /v1/transaction-history': {
    owners: ['merchantA', 'providerA', 'bankA'],
    list: true,
    prepare: async () => ({ path: '/v1/transaction-history', query: { customerId: A.customerId } }),
  },

  // Search (DESIGN 9.3): everyone may search; only who may read the transaction finds it.
  'GET /v1/search': {
    owners: ['merchantA', 'providerA', 'bankA'],
    list: true,
    prepare: async () => ({ path: '/v1/search', query: { q: A.paid.reference } }),
  },

  // Events: the addressee, and the provider of a merchant addressee (DESIGN 8.2).
  'GET /v1/events/{id}': { owners: ['merchantA', 'providerA'], notFound: MSG.eventNotFound, prepare: async (r) => ({ path: path(r) }) },

  // Sandbox helpers.
  'POST /v1/sandbox/recurring/{scheduleId}/run': {
    owners: M_OWNERS,
    notFound: MSG.recurringNotFound,
    prepare: async (r) => ({ path: path(r, { scheduleId: await freshSchedule() }), body: {} }),
  },
  'POST /v1/sandbox/billing-requests/{id}/expire': {
    owners: M_OWNERS,
    notFound: 'Billing request not found',
    prepare: async (r) => ({ path: path(r, { id: await freshPending() }), body: {} }),
  },
  'GET /v1/sandbox/test-clocks/{clockId}': {
    owners: M_OWNERS,
    notFound: 'Test clock not found',
    prepare: async (r) => ({ path: path(r, { clockId: await freshClock() }) }),
  },
  'POST /v1/sandbox/test-clocks/{clockId}/advance': {
    owners: M_OWNERS,
    notFound: 'Test clock not found',
    prepare: async (r) => ({ path: path(r, { clockId: await freshClock() }), body: { frozenTime: '2031-02-01T00:00:00.000Z' } }),
  },
  'DELETE /v1/sandbox/test-clocks/{clockId}': {
    owners: M_OWNERS,
    notFound: 'Test clock not found',
    prepare: async (r) => ({ path: path(r, { clockId: await freshClock() }) }),
  },
  'POST /v1/sandbox/transactions/{reference}/dispute': {
    owners: M_OWNERS,
    notFound: 'Transaction not found',
    prepare: async (r) => ({ path: path(r, { reference: await freshPaid() }), body: {} }),
  },
  'POST /v1/sandbox/refunds/{refundId}/complete': {
    owners: M_OWNERS,
    notFound: 'Refund not found',
    prepare: async (r) => ({ path: path(r, { refundId: await freshRefund() }), body: {} }),
  },
};

// ---------------------------------------------------------------------------------------
// Which routes take an id

/** Fields that name another participant's resource (caller-chosen external ids excluded). */
const ID_FIELD = /^(id|ids|reference)$|Id$/;
const NOT_RESOURCE_IDS = new Set(['deviceId', 'bankTransactionId', 'bankRefundId']);

async function idFields(route: Route): Promise<string[]> {
  const spec = ((await loadHandler(route.handler)) as unknown as { spec?: { body?: unknown; query?: unknown } }).spec ?? {};
  const keys = [spec.body, spec.query].flatMap((s) => Object.keys((s as { shape?: object } | undefined)?.shape ?? {}));
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => `{${m[1]}}`);
  return [...params, ...keys.filter((k) => ID_FIELD.test(k) && !NOT_RESOURCE_IDS.has(k))];
}

describe('isolation matrix', () => {
  it('every id-taking route in the route table has a fixture (and every fixture a route)', async () => {
    const missing: string[] = [];
    for (const route of ROUTES) {
      const ids = await idFields(route);
      if (ids.length && !FIXTURES[routeKey(route)] && !PERSON_FIXTURES[routeKey(route)])
        missing.push(`${routeKey(route)} (takes ${ids.join(', ')})`);
    }
    expect(
      missing,
      `id-taking routes without an isolation fixture: add them to FIXTURES in test/reliability/isolation.test.ts:\n${missing.join('\n')}`,
    ).toEqual([]);
    const known = new Set(ROUTES.map(routeKey));
    expect(Object.keys(FIXTURES).filter((k) => !known.has(k))).toEqual([]);
  });

  for (const route of ROUTES) {
    const fixture = FIXTURES[routeKey(route)];
    if (!fixture) continue;
    if (route.caller) throw new Error(`${routeKey(route)} is for people: its fixture belongs in PERSON_FIXTURES`);
    it(`${routeKey(route)}: every other participant gets 403/404, never data; nothing changes; the owner succeeds`, async () => {
      const req = await fixture.prepare(route);
      await t.app.settle();
      const sentText = JSON.stringify(req);
      const secrets = [...secretsOf(A), A.merchant.email, A.bank.email, A.provider.email].filter((s) => !sentText.includes(s));
      const before = await snapshotTable();
      const problems: string[] = [];
      const isOwner = (r: Role) => gate(route, r) === 'resource' && fixture.owners.includes(principalOf(route, r));
      const owners = ROLES.filter(isOwner);
      expect(owners.length, `no caller is an owner of ${routeKey(route)}`).toBeGreaterThan(0);
      for (const role of ROLES.filter((r) => !isOwner(r))) {
        const c = credentials(role);
        const r = await t.call(route.method, req.path, { key: c.key, headers: c.headers, query: req.query, body: req.body });
        const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
        const leaked = secrets.filter((s) => text.includes(s));
        if (leaked.length) problems.push(`${role}: ${r.status} leaks ${leaked.join(', ')}: ${text.slice(0, 300)}`);
        const outcome = gate(route, role);
        // A per-element answer of one element (bank-responses) carries its message in the element.
        const msg = (Array.isArray(r.body) && r.body.length === 1 ? r.body[0] : (r.body as { message?: string }))?.message;
        const okResult =
          (outcome === 'forbidden' && r.status === 403 && msg === MSG.forbiddenKind) ||
          (outcome === 'entity_required' && r.status === 400 && msg === MSG.entityIdRequired) ||
          (outcome === 'merchant_not_found' && r.status === 404 && msg === MSG.merchantNotFound) ||
          (outcome === 'resource' &&
            ((fixture.notFound !== undefined && r.status === 404 && msg === fixture.notFound) ||
              (fixture.list === true && r.status === 200) ||
              (fixture.refusals ?? []).some((x) => x.status === r.status && x.message === msg)));
        if (!okResult)
          problems.push(
            `${role}: expected ${outcome === 'resource' ? (fixture.list ? '200 (empty list)' : `404 ${fixture.notFound ?? JSON.stringify(fixture.refusals)}`) : outcome}, got ${r.status} ${text.slice(0, 300)}`,
          );
        if (r.status >= 500) problems.push(`${role}: 5xx`);
      }
      await t.app.settle();
      const diff = diffSnapshots(before, await snapshotTable());
      if (diff.length) problems.push(`the table changed:\n    ${diff.join('\n    ')}`);
      expect(problems, problems.join('\n')).toEqual([]);

      // Control: every owner's same request works (so the refusals above were about the caller); the first one for real.
      const owner = credentials(owners.find((r) => principalOf(route, r) === fixture.owners[0]) ?? owners[0]!);
      const r = await t.call(route.method, req.path, { key: owner.key, headers: owner.headers, query: req.query, body: req.body });
      if (fixture.control) expect(fixture.control, JSON.stringify(r.body)).toContain(r.status);
      else expect(r.status >= 200 && r.status < 300, `owner ${fixture.owners[0]}: ${r.status} ${JSON.stringify(r.body)}`).toBe(true);
      // The other owners (a provider for its merchant, the bank of the customer) see it too, where reading does not change it.
      if (route.method === 'GET') {
        for (const o of owners) {
          const c = credentials(o);
          const again = await t.call(route.method, req.path, { key: c.key, headers: c.headers, query: req.query });
          expect(again.status, `owner ${o}: ${JSON.stringify(again.body)}`).toBe(200);
        }
      }
      if (fixture.list) {
        const text = JSON.stringify(r.body);
        expect(
          secrets.some((s) => text.includes(s)) || text.includes(A.merchant.id) || text.includes(A.customerId),
          'the owner list shows the resource',
        ).toBe(true);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------
// People's routes (DESIGN 8.3): callers are signed-in people. personA owns participant PA,
// personB owns PB, personC is a member of nothing; every API key and the operator's key are
// refused on these routes (403 `This action requires a signed-in user`).

type PersonCaller = 'personA' | 'personB' | 'personC' | 'merchantA key' | 'operator key';
const PERSON_CALLERS: PersonCaller[] = ['personA', 'personB', 'personC', 'merchantA key', 'operator key'];

interface PersonFixture {
  /** The answer for personB and personC (another participant's, or no participant). */
  others: { status: number; message: string };
  /** personC's answer when it differs (a person of no participant meets the membership check first). */
  personC?: { status: number; message: string };
  /** The request, and its owner when not personA (the invitee of an invitation). */
  prepare(route: Route): Promise<Req & { owner?: SignedIn }>;
}

let P: { a: SignedIn; b: SignedIn; c: SignedIn; pa: string; pb: string; applicationId: string };

async function personParticipant(who: SignedIn): Promise<{ participantId: string; applicationId: string }> {
  const r = await personCaller(t, who)('POST', '/v1/onboarding/applications', { body: applicationBody() });
  expectOk(r, 201, 'application');
  return r.body.data;
}

beforeAll(async () => {
  const [a, b, c] = [await signUpAndIn(), await signUpAndIn(), await signUpAndIn()];
  const pa = await personParticipant(a);
  const pb = await personParticipant(b);
  P = { a, b, c, pa: pa.participantId, pb: pb.participantId, applicationId: pa.applicationId };
}, 60_000);

const NOT_MEMBER = { status: 403, message: MSG.notAMember };
async function freshKeyOfA(): Promise<string> {
  const r = await personCaller(t, P.a)('POST', '/v1/keys', { body: { name: 'iso' } });
  expectOk(r, 201, 'key');
  return r.body.data.keyId;
}
async function freshMemberOfA(): Promise<string> {
  const who = await signUpAndIn();
  const inv = await personCaller(t, P.a)('POST', '/v1/team/invitations', { body: { email: who.email, role: 'viewer' } });
  expectOk(inv, 201, 'invitation');
  expectOk(await personCaller(t, who)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`), 200, 'accept');
  return who.sub;
}

const PERSON_FIXTURES: Record<string, PersonFixture> = {
  'GET /v1/onboarding/applications/{id}': {
    others: { status: 404, message: MSG.applicationNotFound },
    prepare: async (r) => ({ path: r.path.replace('{id}', P.applicationId) }),
  },
  'DELETE /v1/keys/{keyId}': {
    others: { status: 404, message: MSG.keyNotFound },
    personC: NOT_MEMBER,
    prepare: async (r) => ({ path: r.path.replace('{keyId}', await freshKeyOfA()) }),
  },
  'PATCH /v1/team/members/{userId}': {
    others: { status: 404, message: MSG.memberNotFound },
    personC: NOT_MEMBER,
    prepare: async (r) => ({ path: r.path.replace('{userId}', await freshMemberOfA()), body: { role: 'developer' } }),
  },
  'DELETE /v1/team/members/{userId}': {
    others: { status: 404, message: MSG.memberNotFound },
    personC: NOT_MEMBER,
    prepare: async (r) => ({ path: r.path.replace('{userId}', await freshMemberOfA()) }),
  },
  'DELETE /v1/team/invitations/{invitationId}': {
    others: { status: 404, message: MSG.invitationNotFound },
    personC: NOT_MEMBER,
    prepare: async (r) => {
      const inv = await personCaller(t, P.a)('POST', '/v1/team/invitations', {
        body: { email: `iso-${Date.now()}@example.com`, role: 'viewer' },
      });
      expectOk(inv, 201, 'invitation');
      return { path: r.path.replace('{invitationId}', inv.body.data.invitationId) };
    },
  },
  // The token is the secret that names an invitation (it is e-mailed to the invitee): any
  // signed-in person holding it may read what it offers, and reading changes nothing.
  'GET /v1/invitations/{token}': {
    others: { status: 200, message: 'Invitation retrieved' },
    prepare: async (r) => {
      const inv = await personCaller(t, P.a)('POST', '/v1/team/invitations', {
        body: { email: `iso-${Date.now()}@example.com`, role: 'viewer' },
      });
      expectOk(inv, 201, 'invitation');
      return { path: r.path.replace('{token}', inv.body.data.token) };
    },
  },
  // An invitation is for one e-mail address: anyone else (its inviter included) is refused, and it stays usable.
  'POST /v1/team/invitations/{token}/accept': {
    others: { status: 403, message: MSG.invitationOtherEmail },
    prepare: async (r) => {
      const invitee = await signUpAndIn();
      const inv = await personCaller(t, P.a)('POST', '/v1/team/invitations', { body: { email: invitee.email, role: 'viewer' } });
      expectOk(inv, 201, 'invitation');
      return { path: r.path.replace('{token}', inv.body.data.token), owner: invitee };
    },
  },
};

describe("isolation matrix: people's routes", () => {
  for (const route of ROUTES.filter((r) => PERSON_FIXTURES[routeKey(r)])) {
    const fixture = PERSON_FIXTURES[routeKey(route)]!;
    it(`${routeKey(route)}: other people get ${fixture.others.status}, keys 403, nothing changes; the owner succeeds`, async () => {
      const req = await fixture.prepare(route);
      await t.app.settle();
      const before = await snapshotTable();
      const problems: string[] = [];
      for (const who of PERSON_CALLERS.filter((c) => req.owner || c !== 'personA')) {
        const person = who === 'personA' ? P.a : who === 'personB' ? P.b : who === 'personC' ? P.c : undefined;
        const r = person
          ? await personCaller(t, person)(route.method, req.path, { body: req.body, query: req.query })
          : await t.call(route.method, req.path, {
              key: who === 'operator key' ? t.operatorKey : A.merchant.apiKey,
              body: req.body,
              query: req.query,
            });
        const want = person ? (who === 'personC' && fixture.personC) || fixture.others : { status: 403, message: MSG.personRequired };
        if (r.status !== want.status || r.body?.message !== want.message)
          problems.push(`${who}: expected ${want.status} ${want.message}, got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
      await t.app.settle();
      const diff = diffSnapshots(before, await snapshotTable());
      if (diff.length) problems.push(`the table changed:\n    ${diff.join('\n    ')}`);
      expect(problems, problems.join('\n')).toEqual([]);
      const owner = await personCaller(t, req.owner ?? P.a)(route.method, req.path, { body: req.body, query: req.query });
      expect(owner.status >= 200 && owner.status < 300, `owner: ${owner.status} ${JSON.stringify(owner.body)}`).toBe(true);
    });
  }
});

describe('answers to the ids of one flow', () => {
  it("a bank answering another bank's billing request changes nothing; the right bank's answer still works", async () => {
    const id = await freshPending();
    const wrong = await bankResponse(t, B.bank, id, 'approve_once');
    expect(wrong.status).toBe(404);
    const right = await bankResponse(t, A.bank, id, 'approve_once');
    expect(right.status).toBe(200);
  });
});
