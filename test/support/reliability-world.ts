/**
 * The reliability suite's world: groups of participants with one of every resource, made
 * through the real flows (test/support/flows.ts), plus the callers of the isolation matrix.
 *
 * A group: a provider (maxTrustLevel premium) and its premium, device-lookup merchant; a
 * bank with one onboarded customer (batch), a device link, an approve_recurring decision;
 * a captured bill, a pending one-time pay, a pending refund, a recurring schedule, an open
 * intent, webhook endpoints of all three on the receiver and their deliveries, and a
 * second API key of the merchant. Descriptions carry a per-group marker (`secret`).
 */
import { randomToken } from '../../functions/domain/ids';
import { lagosDate } from '../../functions/domain/lagos-time';
import type { Route } from '../../functions/routes';
import type { TestApp } from './app';
import { bankResponse, bill, decide, lookupPhraseFor, pay, webhook, type Hook, type Party } from './flows';
import type { Receiver } from '../../local/receiver';
import { applicationBody, personCaller, signUpAndIn, type SignedIn } from './people';

export interface Group {
  label: string;
  secret: string;
  provider: Party;
  merchant: Party;
  bank: Party;
  customerId: string;
  email: string;
  clientRef: string;
  batchId: string;
  lookupPhrase: string;
  agreementPhrase: string;
  decisionId: string;
  deviceId: string;
  hooks: { merchant: Hook; bank: Hook; provider: Hook };
  paid: { billingRequestId: string; reference: string };
  pending: { billingRequestId: string; reference: string };
  refundId: string;
  /** A dispute the bank opened on `paid` (1.00, needs_response). */
  disputeId: string;
  scheduleId: string;
  intentId: string;
  deliveryId: string;
  /** The event of `deliveryId` (addressed to the merchant). */
  eventId: string;
  bankDeliveryId: string;
  keyId: string;
  /** A sandbox test clock of the merchant. */
  clockId: string;
  /** People (DESIGN 8.3), when a suite adds them (withPeople): a person owning their own participant. */
  people?: People;
}

export interface People {
  person: SignedIn;
  participantId: string;
  applicationId: string;
  /** A key the person created. */
  personKeyId: string;
  /** An open invitation of the person's participant (for someone else). */
  invitationToken: string;
  invitationId: string;
}

/** A signed-in person who applied (sandbox: approved at once), with a key and an open invitation. */
export async function withPeople(t: TestApp): Promise<People> {
  const person = await signUpAndIn();
  const as = personCaller(t, person);
  const app = await as('POST', '/v1/onboarding/applications', { body: applicationBody() });
  expectOk(app, 201, 'application');
  const key = await as('POST', '/v1/keys', { body: { name: 'world' } });
  expectOk(key, 201, 'person key');
  const inv = await as('POST', '/v1/team/invitations', {
    body: { email: `invitee-${randomToken(8).toLowerCase()}@example.com`, role: 'viewer' },
  });
  expectOk(inv, 201, 'invitation');
  return {
    person,
    participantId: app.body.data.participantId,
    applicationId: app.body.data.applicationId,
    personKeyId: key.body.data.keyId,
    invitationToken: inv.body.data.token,
    invitationId: inv.body.data.invitationId,
  };
}

export function expectOk(r: { status: number; body: unknown }, status: number | number[], what: string): void {
  const ok = Array.isArray(status) ? status.includes(r.status) : r.status === status;
  if (!ok) throw new Error(`${what}: expected ${String(status)}, got ${r.status} ${JSON.stringify(r.body)}`);
}

/** A premium merchant of a new provider (device lookup on), as the flows do it. */
export async function premiumMerchant(t: TestApp): Promise<{ provider: Party; merchant: Party }> {
  const provider = await t.participant('provider');
  expectOk(
    await t.call('PATCH', `/v1/operator/providers/${provider.id}`, { key: t.operatorKey, body: { maxTrustLevel: 'premium' } }),
    200,
    'provider premium',
  );
  const merchant = await t.participant('merchant', { providerId: provider.id });
  expectOk(
    await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: provider.apiKey,
      body: { entityId: merchant.id, trusted: true, trustLevel: 'premium', deviceLookupEnabled: true },
    }),
    200,
    'merchant trust',
  );
  return { provider, merchant };
}

let n = 0;

export async function buildGroup(t: TestApp, rx: Receiver, label: string): Promise<Group> {
  const secret = `secret-${label}-${randomToken(10)}`;
  const { provider, merchant } = await premiumMerchant(t);
  const bank = await t.participant('bank');
  const hooks = {
    merchant: await webhook(t, rx, merchant, { label: `${label}-m` }),
    bank: await webhook(t, rx, bank, { label: `${label}-b` }),
    provider: await webhook(t, rx, provider, { label: `${label}-p` }),
  };
  const i = ++n;
  const run = randomToken(6).toLowerCase();
  const email = `rel-${label}-${i}-${run}@example.com`;
  const clientRef = `REL-${label}-${run}`;
  const batch = await t.call('POST', '/v1/bank/customers', {
    key: bank.apiKey,
    body: {
      customers: [
        {
          clientRef,
          firstname: 'Ngozi',
          lastname: `Eze${i}`,
          email,
          country: 'NG',
          accountNumber: `0987${String(i).padStart(6, '0')}`,
          reference: `RREF-${label}-${run}`,
        },
      ],
    },
  });
  expectOk(batch, 201, 'onboard');
  const batchId: string = batch.body.data.batchId;
  const customerId: string = batch.body.data.data.customerIds[0];
  const lookupPhrase = await lookupPhraseFor(t, merchant, email, bank.id);
  const d = await decide(t, {
    bank,
    merchant,
    customerId,
    lookupPhrase,
    decision: 'approve_recurring',
    limits: { single: 1_000, daily: 5_000 },
  });
  const deviceId = `dev-${label}-${run}`;
  expectOk(
    await t.call('POST', '/v1/bank/customer/device/link', { key: bank.apiKey, body: { customerId, phrase: 'device phrase', deviceId } }),
    200,
    'device link',
  );

  const b = await bill(t, merchant, [d.agreementPhrase], 25, { description: `${secret} bill` });
  expectOk(b, 201, 'bill');
  const paid = { billingRequestId: b.body[0].billingRequestId as string, reference: b.body[0].reference as string };
  expectOk(await bankResponse(t, bank, paid.billingRequestId, 'approve_recurring'), 200, 'bank approves');
  const p = await pay(t, merchant, [lookupPhrase], 10, { description: `${secret} pay` });
  expectOk(p, 201, 'pay');
  const pending = { billingRequestId: p.body[0].billingRequestId as string, reference: p.body[0].reference as string };
  const refund = await t.call('POST', '/v1/refunds/initiate', {
    key: merchant.apiKey,
    body: { reference: paid.reference, amount: 1, reason: `${secret} refund` },
  });
  expectOk(refund, 201, 'refund');
  const dispute = await t.call('POST', '/v1/bank/disputes', {
    key: bank.apiKey,
    body: { reference: paid.reference, reason: 'other', amount: 1 },
  });
  expectOk(dispute, 201, 'dispute');
  const schedule = await t.call('POST', '/v1/billing/recurring/create', {
    key: merchant.apiKey,
    body: {
      customerId,
      agreementPhrase: d.agreementPhrase,
      amount: 5,
      currency: 'NGN',
      frequency: 'monthly',
      startDate: '2031-01-15T09:00:00.000Z',
      description: `${secret} schedule`,
    },
  });
  expectOk(schedule, 201, 'schedule');
  const intent = await t.call('POST', '/v1/billing/intent', {
    key: merchant.apiKey,
    body: { lookupPhrases: [lookupPhrase], currency: 'NGN', description: `${secret} intent` },
  });
  expectOk(intent, 200, 'intent');
  const key = await t.call('POST', `/v1/operator/participants/${merchant.id}/keys`, { key: t.operatorKey });
  expectOk(key, 201, 'second key');
  // Sandbox only (a live world has none: the route is 404 there).
  const clock = await t.call('POST', '/v1/sandbox/test-clocks', {
    key: merchant.apiKey,
    body: { frozenTime: '2031-01-01T00:00:00.000Z', name: `${secret} clock` },
  });
  await t.app.settle();
  const deliveries = await t.call('GET', '/v1/webhooks/deliveries', { key: merchant.apiKey });
  expectOk(deliveries, 200, 'deliveries');
  const bankDeliveries = await t.call('GET', '/v1/webhooks/deliveries', { key: bank.apiKey });
  expectOk(bankDeliveries, 200, 'bank deliveries');
  if (!deliveries.body.data.deliveries.length || !bankDeliveries.body.data.deliveries.length) throw new Error('no deliveries yet');
  return {
    label,
    secret,
    provider,
    merchant,
    bank,
    customerId,
    email,
    clientRef,
    batchId,
    lookupPhrase,
    agreementPhrase: d.agreementPhrase,
    decisionId: d.id,
    deviceId,
    hooks,
    paid,
    pending,
    refundId: refund.body.data.refundId,
    disputeId: dispute.body.data.disputeId,
    scheduleId: schedule.body.data.scheduleId,
    intentId: intent.body[0].intentId,
    deliveryId: deliveries.body.data.deliveries[0].id,
    eventId: deliveries.body.data.deliveries[0].eventId,
    bankDeliveryId: bankDeliveries.body.data.deliveries[0].id,
    keyId: key.body.data.keyId,
    clockId: clock.status === 201 ? clock.body.data.clockId : 'clk_0000000000000000',
  };
}

/** The strings of a group that another participant must never see. */
export function secretsOf(g: Group): string[] {
  return [
    g.secret,
    g.customerId,
    g.email,
    g.clientRef,
    g.batchId,
    g.lookupPhrase,
    g.agreementPhrase,
    g.decisionId,
    g.deviceId,
    g.paid.billingRequestId,
    g.paid.reference,
    g.pending.billingRequestId,
    g.pending.reference,
    g.refundId,
    g.disputeId,
    g.scheduleId,
    g.intentId,
    g.deliveryId,
    g.bankDeliveryId,
    g.hooks.merchant.endpointId,
    g.hooks.bank.endpointId,
    g.hooks.provider.endpointId,
    g.keyId,
    g.clockId,
  ];
}

/** Path parameters of a route filled with group A's resources (the caller owns them). */
/** `encoded`: segments used exactly as given (already percent-encoded, or malformed on purpose). */
export function pathFor(route: Route, g: Group, override: Record<string, string> = {}, encoded: Record<string, string> = {}): string {
  const values: Record<string, string> = {
    'POST /v1/operator/participants/{id}/keys#id': g.merchant.id,
    'DELETE /v1/operator/keys/{keyId}#keyId': g.keyId,
    'PATCH /v1/operator/providers/{id}#id': g.provider.id,
    'GET /v1/bank/customers/batches/{batchId}#batchId': g.batchId,
    'PUT /v1/bank/customer-decisions/{id}#id': g.decisionId,
    'GET /v1/customer-decisions/{id}#id': g.decisionId,
    'GET /v1/sandbox/test-clocks/{clockId}#clockId': g.clockId,
    'POST /v1/sandbox/test-clocks/{clockId}/advance#clockId': g.clockId,
    'DELETE /v1/sandbox/test-clocks/{clockId}#clockId': g.clockId,
    'GET /v1/customer-decisions/{id}/history#id': g.decisionId,
    'GET /v1/bank/customer-decisions/{id}/history#id': g.decisionId,
    'GET /v1/bank/customers/{customerId}/consents#customerId': g.customerId,
    'DELETE /v1/webhooks/endpoints/{id}#id': g.hooks.merchant.endpointId,
    'POST /v1/webhooks/endpoints/{id}/rotate-secret#id': g.hooks.merchant.endpointId,
    'POST /v1/webhooks/endpoints/{id}/test#id': g.hooks.merchant.endpointId,
    'POST /v1/webhooks/deliveries/{id}/replay#id': g.deliveryId,
    'GET /v1/webhooks/deliveries/{id}#id': g.deliveryId,
    'GET /v1/events/{id}#id': g.eventId,
    // No settlement exists in the world (nothing is settled): the fuzzed id reaches the read and its 404.
    'GET /v1/settlements/{id}#id': `stl_${g.merchant.id}_2030-01-01_1`,
    'GET /v1/exports/{id}#id': 'exp_00000000000000000000000',
    'POST /v1/sandbox/billing-requests/{id}/expire#id': g.pending.billingRequestId,
    'POST /v1/sandbox/transactions/{reference}/dispute#reference': g.paid.reference,
    ...(g.people
      ? {
          'GET /v1/onboarding/applications/{id}#id': g.people.applicationId,
          'POST /v1/operator/applications/{id}/approve#id': g.people.applicationId,
          'POST /v1/operator/applications/{id}/reject#id': g.people.applicationId,
          'DELETE /v1/keys/{keyId}#keyId': g.people.personKeyId,
          'POST /v1/team/invitations/{token}/accept#token': g.people.invitationToken,
          'GET /v1/invitations/{token}#token': g.people.invitationToken,
          'DELETE /v1/team/invitations/{invitationId}#invitationId': g.people.invitationId,
          'PATCH /v1/team/members/{userId}#userId': g.people.person.sub,
          'DELETE /v1/team/members/{userId}#userId': g.people.person.sub,
        }
      : {}),
  };
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (encoded[name] !== undefined) return encoded[name];
    const v =
      override[name] ??
      values[`${route.method} ${route.path}#${name}`] ??
      (name === 'scheduleId' ? g.scheduleId : name === 'refundId' ? g.refundId : name === 'disputeId' ? g.disputeId : undefined);
    if (v === undefined)
      throw new Error(
        `no value for path parameter ${name} of ${route.method} ${route.path}: add it to pathFor in test/support/reliability-world.ts`,
      );
    return encodeURIComponent(v);
  });
}

/** A valid request (body and query) for each route, with group A's resources. */
export function exampleFor(route: Route, g: Group, rxUrl: string): { body?: unknown; query?: Record<string, string> } {
  const key = `${route.method} ${route.path}`;
  const uniq = randomToken(6).toLowerCase();
  switch (key) {
    case 'POST /v1/operator/participants':
      return { body: { type: 'merchant', name: 'Fuzz Merchant', email: `fuzz-${uniq}@example.com`, providerId: g.provider.id } };
    case 'PATCH /v1/operator/providers/{id}':
      return { body: { maxTrustLevel: 'premium' } };
    case 'POST /v1/bank/customers':
      return {
        body: {
          customers: [
            {
              clientRef: `F-${uniq}`,
              firstname: 'Fuzz',
              lastname: 'Case',
              email: `f-${uniq}@example.com`,
              country: 'NG',
              accountNumber: '0123456789',
              reference: `FR-${uniq}`,
            },
          ],
        },
      };
    case 'POST /v1/bank/customer/device/link':
      return { body: { customerId: g.customerId, phrase: 'p', deviceId: g.deviceId } };
    case 'GET /v1/bank/customer-decisions':
      return { query: { customerId: g.customerId, entityId: g.merchant.id, decision: 'approve_recurring', limit: '10', skip: '0' } };
    case 'PUT /v1/bank/customer-decisions/{id}':
      return { body: { customerDecision: 'approve_recurring', spendingLimits: { single: 1_000, daily: 5_000 }, blockMerchant: false } };
    case 'GET /v1/bank/customer/subscriptions':
      return { query: { customerId: g.customerId, entityId: g.merchant.id, status: 'active', limit: '10', skip: '0' } };
    case 'GET /v1/bank/customers/{customerId}/consents':
      return { query: { limit: '10' } };
    case 'POST /v1/billing/intent-response':
      return {
        body: {
          customerId: g.customerId,
          entityId: g.merchant.id,
          lookupPhrase: g.lookupPhrase,
          customerDecision: 'approve_recurring',
          spendingLimits: { single: 1_000, daily: 5_000 },
          blockMerchant: false,
          intentId: g.intentId,
        },
      };
    case 'POST /v1/billing/bank-response':
      return { body: { billingRequestId: g.pending.billingRequestId, action: 'deny', bankTransactionId: `BTX-${uniq}` } };
    case 'POST /v1/billing/bank-responses':
      return { body: { responses: [{ billingRequestId: g.pending.billingRequestId, action: 'deny', bankTransactionId: `BTX-${uniq}` }] } };
    case 'POST /v1/billing/refund-response':
      return { body: { refundId: g.refundId, status: 'processing', bankRefundId: `BR-${uniq}` } };
    case 'POST /v1/customer/device/lookup':
      return { body: { deviceId: g.deviceId } };
    case 'GET /v1/customer/banks':
      return { query: { email: g.email } };
    case 'POST /v1/billing/intent':
      return { body: { lookupPhrases: [g.lookupPhrase], currency: 'NGN', description: 'Fuzz intent' } };
    case 'POST /v1/customer/bill':
      return { body: { agreementPhrases: [g.agreementPhrase], amount: 1, currency: 'NGN', description: 'Fuzz bill' } };
    case 'POST /v1/customer/pay':
      return { body: { lookupPhrases: [g.lookupPhrase], amount: 1, currency: 'NGN', description: 'Fuzz pay' } };
    case 'GET /v1/merchant/customer-decisions':
      return { query: { customerId: g.customerId, agreementPhrase: g.agreementPhrase, limit: '10', skip: '0' } };
    case 'POST /v1/billing/recurring/create':
      return {
        body: {
          customerId: g.customerId,
          agreementPhrase: g.agreementPhrase,
          amount: 5,
          currency: 'NGN',
          frequency: 'monthly',
          interval: 1,
          startDate: '2031-02-01T09:00:00.000Z',
          endDate: null,
          maxBillings: 3,
          description: 'Fuzz schedule',
          metadata: { plan: 'gold' },
        },
      };
    case 'POST /v1/recurring/{scheduleId}/pause':
    case 'POST /v1/recurring/{scheduleId}/resume':
    case 'POST /v1/bank/subscriptions/{scheduleId}/skip':
    case 'POST /v1/recurring/{scheduleId}/skip':
    case 'POST /v1/bank/subscriptions/{scheduleId}/cancel':
      return { body: { reason: 'fuzz' } };
    case 'POST /v1/sandbox/test-clocks':
      return { body: { frozenTime: '2030-01-01T00:00:00.000Z', name: 'Fuzz clock' } };
    case 'POST /v1/sandbox/test-clocks/{clockId}/advance':
      return { body: { frozenTime: '2030-02-01T00:00:00.000Z' } };
    case 'PATCH /v1/recurring/{scheduleId}':
      return { body: { amount: 6, frequency: 'weekly', description: 'Fuzz amendment' } };
    case 'PUT /v1/merchant/retry-policy':
      return { body: { retryAfterDays: [1, 2, 3] } };
    case 'GET /v1/recurring':
      return { query: { customerId: g.customerId, status: 'active', limit: '10', skip: '0' } };
    case 'GET /v1/transaction-history':
      return { query: { status: 'succeeded', from: '2020-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z', limit: '10', skip: '0' } };
    case 'GET /v1/transaction-details':
      return { query: { reference: g.paid.reference } };
    case 'POST /v1/refunds/initiate':
      return { body: { reference: g.paid.reference, amount: 0.01, reason: 'fuzz' } };
    case 'POST /v1/provider/merchants':
      return {
        body: {
          merchants: [
            {
              name: 'Fuzz Shop',
              email: `shop-${uniq}@example.com`,
              phone: '+2348000000000',
              website: 'https://shop.example.com',
              country: 'NG',
            },
          ],
        },
      };
    case 'GET /v1/provider/merchants':
      return { query: { ids: g.merchant.id, trusted: 'true', limit: '10', offset: '0' } };
    case 'GET /v1/provider/merchant':
    case 'GET /v1/provider/merchant/trust':
    case 'GET /v1/provider/merchant/trust/device-permission':
      return { query: { entityId: g.merchant.id } };
    case 'PATCH /v1/provider/merchant':
      return { body: { entityId: g.merchant.id, description: 'Fuzzed shop', state: 'Lagos' } };
    case 'PATCH /v1/provider/merchant/trust':
      return { body: { entityId: g.merchant.id, trusted: true, trustLevel: 'premium', deviceLookupEnabled: true } };
    case 'GET /v1/provider/merchant/trust/multiple':
      return { query: { trusted: 'true', trustLevel: 'premium', deviceLookupEnabled: 'true', limit: '10', offset: '0' } };
    case 'POST /v1/provider/merchant/trust/validate':
      return { body: { entityId: g.merchant.id, requiredTrustLevel: 'enhanced' } };
    case 'POST /v1/webhooks/endpoints':
      return { body: { url: `${rxUrl}/fuzz-${uniq}`, events: ['billing.response'] } };
    case 'GET /v1/webhooks/deliveries':
      return { query: { status: 'delivered', type: 'billing.response', limit: '10', skip: '0' } };
    case 'POST /v1/exports':
      return { body: { kind: 'transactions', from: '2020-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' } };
    case 'GET /v1/settlements':
      return { query: { limit: '10' } };
    case 'GET /v1/bank/settlement-reports':
      return { query: { businessDate: lagosDate(new Date()) } };
    case 'GET /v1/events':
      return {
        query: {
          type: 'billing.response',
          deliverySuccess: 'true',
          createdFrom: '2020-01-01T00:00:00.000Z',
          createdTo: '2100-01-01T00:00:00.000Z',
          limit: '10',
        },
      };
    case 'POST /v1/onboarding/applications':
      return { body: applicationBody() };
    case 'POST /v1/team/invitations':
      return { body: { email: `fuzz-${uniq}@example.com`, role: 'developer' } };
    case 'PATCH /v1/team/members/{userId}':
      return { body: { role: 'owner' } };
    case 'POST /v1/operator/applications/{id}/reject':
      return { body: { reason: 'Fuzz' } };
    case 'GET /v1/operator/applications':
      return { query: { status: 'approved', limit: '10' } };
    case 'GET /v1/operator/participants':
      return { query: { type: 'merchant', q: 'fuzz', limit: '10' } };
    case 'POST /v1/me/sign-out':
      return { body: {} };
    case 'POST /v1/keys':
      return { body: { name: 'Fuzz key', expiresInDays: 30, role: 'developer' } };
    case 'GET /v1/keys':
    case 'GET /v1/team/invitations':
    case 'GET /v1/team/members':
    case 'GET /v1/audit-log':
      return { query: { limit: '10' } };
    case 'POST /v1/bank/disputes':
      return { body: { reference: g.paid.reference, reason: 'other', amount: 0.01 } };
    case 'POST /v1/disputes/{disputeId}/respond':
      return { body: { evidence: { text: 'Fuzz evidence:\nsigned receipt' } } };
    case 'POST /v1/bank/disputes/{disputeId}/resolve':
      return { body: { outcome: 'lost' } };
    case 'POST /v1/sandbox/transactions/{reference}/dispute':
      return { body: { reason: 'duplicate' } };
    case 'GET /v1/disputes':
    case 'GET /v1/bank/disputes':
      return { query: { status: 'needs_response', limit: '10' } };
    case 'POST /v1/disputes/{disputeId}/accept':
    case 'POST /v1/sandbox/recurring/{scheduleId}/run':
    case 'POST /v1/sandbox/billing-requests/{id}/expire':
    case 'POST /v1/sandbox/settlements/run':
    case 'POST /v1/sandbox/refunds/{refundId}/complete':
      return { body: {} };
    default:
      return {};
  }
}
