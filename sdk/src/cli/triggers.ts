/**
 * `idpay trigger <event type>` (and the repository's `npm run ops -- trigger`): causes a real event of that type in the sandbox,
 * through the public API and the simulated bank (the operator creates one with
 * `{"type": "bank", "simulated": true}`), as an integrator would: every event type the
 * sandbox can produce (TRIGGERS).
 *
 * The key is a sandbox merchant's, or a sandbox provider's with `--entity <merchant id>`.
 * Schedule events need a merchant its provider trusts at `premium` (recurring billing is
 * premium only); `merchant.trust.updated` needs the provider's key (only a provider changes
 * trust). Events addressed to the customer's bank (`billing.intent`, `billing.request`,
 * `billing.upcoming`, `refund.requested`) reach the simulated bank: listen with its key to
 * receive them. What a trigger creates stays (a schedule created for `schedule.created` is
 * active, its first run 30 days away): it is the sandbox.
 */
import { EVENT_TYPES } from '../generated/meta.js';
import { call, must, sleep, type ApiEvent, type Target } from './api.js';

const isEventType = (type: string) => (EVENT_TYPES as readonly string[]).includes(type);
/** The code of 403 `Merchant trust level does not allow recurring billing`. */
const RECURRING_NOT_ALLOWED = 'recurring_not_allowed';

/** How long a trigger waits for the step it needs (an answer of the simulated bank, a run). */
const WAIT_MS = 60_000;
const POLL_MS = 250;

export interface Trigger {
  /** What the trigger does. */
  how: string;
  /** Who receives the event: the merchant (and its provider), the customer's (simulated) bank, or one webhook endpoint. */
  to: 'merchant' | 'bank' | 'endpoint';
  /** A merchant trusted at premium, or a provider's key with --entity. */
  needs?: 'premium' | 'provider';
  run: (t: Target) => Promise<string>;
}

// ---------------------------------------------------------------------------------------
// Steps

const magicEmail = (local: string) => `${local}@sandbox.idpay.test`;

/** The oldest simulated bank's lookup phrase for a magic customer. */
async function magic(t: Target, local: string): Promise<{ bankId: string; lookupPhrase: string }> {
  const banks = must(await call(t, 'GET', `/v1/customer/banks?email=${encodeURIComponent(magicEmail(local))}`), 'GET /v1/customer/banks')
    .data?.banks as { bankId: string; lookupPhrase: string }[] | undefined;
  if (!banks?.length)
    throw new Error('No simulated bank in this sandbox: the operator creates one with {"type": "bank", "simulated": true}');
  return banks[0]!;
}

/** The caller's newest events of `type`. */
async function latest(t: Target, type: string): Promise<ApiEvent[]> {
  return must(await call(t, 'GET', `/v1/events?type=${encodeURIComponent(type)}&limit=100`), 'GET /v1/events').data.events as ApiEvent[];
}

/** Polls the caller's events of `type` until one matches; `meanwhile` runs between polls. */
async function waitForEvent(
  t: Target,
  type: string,
  match: (e: ApiEvent) => boolean,
  what: string,
  meanwhile?: () => Promise<void>,
): Promise<ApiEvent> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = (await latest(t, type)).find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`${what}: no ${type} within ${WAIT_MS / 1000} s (is the scheduler tick running?)`);
    await meanwhile?.();
    await sleep(POLL_MS);
  }
}

/** A billing intent to a magic customer: the intent's id and the customer's bank. */
async function sendIntent(t: Target, local: string): Promise<{ intentId: string; bankId: string }> {
  const { bankId, lookupPhrase } = await magic(t, local);
  const r = must(
    await call(t, 'POST', '/v1/billing/intent', { lookupPhrases: [lookupPhrase], currency: 'NGN', description: 'ops trigger' }),
    'POST /v1/billing/intent',
  );
  const intentId = (Array.isArray(r) ? r[0] : undefined)?.intentId as string | undefined;
  if (!intentId) throw new Error(`POST /v1/billing/intent: ${JSON.stringify(r)}`);
  return { intentId, bankId };
}

/** A billing intent the simulated bank answered: the answer's data (decision, agreementPhrase, customerId). */
async function answeredIntent(t: Target, local: string): Promise<Record<string, any>> {
  const { intentId } = await sendIntent(t, local);
  const answer = await waitForEvent(t, 'billing.intent.response', (e) => e.data.intentId === intentId, `intent ${intentId}`);
  return answer.data;
}

/** A one-time payment of NGN 100 to the magic customer that approves: its reference, once sent. */
async function pay(t: Target): Promise<{ reference: string; bankId: string }> {
  const { bankId, lookupPhrase } = await magic(t, 'approve.once');
  const r = must(
    await call(t, 'POST', '/v1/customer/pay', { lookupPhrases: [lookupPhrase], amount: 100, currency: 'NGN', description: 'ops trigger' }),
    'POST /v1/customer/pay',
  );
  const reference = (Array.isArray(r) ? r[0] : undefined)?.reference as string | undefined;
  if (!reference) throw new Error(`POST /v1/customer/pay: ${JSON.stringify(r)}`);
  return { reference, bankId };
}

/** That payment, once it succeeded. */
async function paid(t: Target): Promise<string> {
  const { reference } = await pay(t);
  const answer = await waitForEvent(t, 'billing.response', (e) => e.data.reference === reference, `payment ${reference}`);
  if (answer.data.status !== 'succeeded') throw new Error(`payment ${reference} ${answer.data.status}`);
  return reference;
}

const premiumNeeded = (type: string) =>
  `${type} needs a merchant its provider trusts at premium: the provider sets it with ` +
  'PATCH /v1/provider/merchant/trust {"entityId": "<merchant id>", "trusted": true, "trustLevel": "premium"}';

/** A recurring schedule of NGN 100 under a magic customer's approve_recurring decision. */
async function schedule(
  t: Target,
  type: string,
  opts: { customer?: string; startInDays?: number; maxBillings?: number; frequency?: string } = {},
): Promise<string> {
  const customer = opts.customer ?? 'approve.recurring';
  const answer = await answeredIntent(t, customer);
  if (answer.decision !== 'approve_recurring') throw new Error(`${premiumNeeded(type)} (the simulated bank answered ${answer.decision})`);
  const startDate = new Date(Date.now() + (opts.startInDays ?? 30) * 86_400_000).toISOString();
  const body = {
    customerId: answer.customerId,
    agreementPhrase: answer.agreementPhrase,
    amount: 100,
    currency: 'NGN',
    frequency: opts.frequency ?? 'monthly',
    startDate,
    ...(opts.maxBillings ? { maxBillings: opts.maxBillings } : {}),
    description: 'ops trigger',
  };
  const created = await call(t, 'POST', '/v1/billing/recurring/create', body);
  if (created.status === 403 && created.body?.code === RECURRING_NOT_ALLOWED) throw new Error(premiumNeeded(type));
  return must(created, 'POST /v1/billing/recurring/create').data.scheduleId as string;
}

const forSchedule = (scheduleId: string) => (e: ApiEvent) => e.data.scheduleId === scheduleId;

/** A schedule, then one call on it, then its event. */
function scheduleThen(
  type: string,
  how: string,
  act: (t: Target, id: string) => Promise<void>,
  opts?: Parameters<typeof schedule>[2],
): Trigger {
  return {
    how,
    to: 'merchant',
    needs: 'premium',
    run: async (t) => {
      const id = await schedule(t, type, opts);
      await act(t, id);
      await waitForEvent(t, type, forSchedule(id), `schedule ${id}`);
      return `${type}: schedule ${id}`;
    },
  };
}

const post = async (t: Target, path: string, body: unknown = {}) => void must(await call(t, 'POST', path, body), `POST ${path}`);

/** Makes a schedule's runs due one after the other until `type` arrives for it. */
async function runUntil(t: Target, id: string, type: string): Promise<void> {
  await waitForEvent(t, type, forSchedule(id), `schedule ${id}`, async () => {
    const s = must(await call(t, 'GET', `/v1/recurring/${id}`), 'GET /v1/recurring/{id}').data;
    // the next run due now (a run at the bank, or one already due: 409 / no change; asked again)
    if (s.status === 'active') await call(t, 'POST', `/v1/sandbox/recurring/${id}/run`, {});
  });
}

/** A schedule of one billing due now, through to its completion (its notice and its run done). */
async function oneBilling(t: Target, type: string): Promise<string> {
  const id = await schedule(t, type, { startInDays: 0, maxBillings: 1 });
  await waitForEvent(t, 'schedule.completed', forSchedule(id), `schedule ${id}`);
  return id;
}

/** A payment and a refund of NGN 50 of it. */
async function refunded(t: Target): Promise<{ reference: string; refundId: string }> {
  const reference = await paid(t);
  const refund = must(
    await call(t, 'POST', '/v1/refunds/initiate', { reference, amount: 50, reason: 'ops trigger' }),
    'POST /v1/refunds/initiate',
  );
  return { reference, refundId: refund.data.refundId as string };
}

// ---------------------------------------------------------------------------------------
// The triggers

/** Every event type the sandbox can produce, and how. */
export const TRIGGERS: Record<string, Trigger> = {
  'billing.intent': {
    how: 'a billing intent to the magic customer approve.once (to its simulated bank)',
    to: 'bank',
    run: async (t) => {
      const { intentId, bankId } = await sendIntent(t, 'approve.once');
      return `billing.intent: intent ${intentId} sent to the simulated bank ${bankId} (listen with its key to receive it)`;
    },
  },
  'billing.intent.response': {
    how: 'a billing intent to the magic customer approve.once; the simulated bank answers it',
    to: 'merchant',
    run: async (t) => {
      const answer = await answeredIntent(t, 'approve.once');
      return `billing.intent.response: intent ${answer.intentId} answered ${answer.decision}`;
    },
  },
  'billing.request': {
    how: 'a one-time payment of NGN 100 to the magic customer approve.once (to its simulated bank)',
    to: 'bank',
    run: async (t) => {
      const { reference, bankId } = await pay(t);
      return `billing.request: payment ${reference} sent to the simulated bank ${bankId} (listen with its key to receive it)`;
    },
  },
  'billing.response': {
    how: 'a one-time payment of NGN 100 the simulated customer approves',
    to: 'merchant',
    run: async (t) => `billing.response: payment ${await paid(t)} succeeded`,
  },
  'billing.upcoming': {
    how: 'a schedule of one NGN 100 billing due now: its pre-debit notice goes to the simulated bank before the run',
    to: 'bank',
    needs: 'premium',
    run: async (t) => {
      const id = await oneBilling(t, 'billing.upcoming');
      return `billing.upcoming: schedule ${id}'s notice sent to the simulated bank before its run (listen with its key to receive it; none when PRE_DEBIT_NOTICE_SECONDS is 0)`;
    },
  },
  'merchant.trust.updated': {
    how: "the provider re-verifies the merchant's trust (nothing else changes)",
    to: 'merchant',
    needs: 'provider',
    run: async (t) => {
      if (!t.entity) {
        throw new Error('merchant.trust.updated needs a sandbox provider key and --entity <merchant id> (only a provider changes trust)');
      }
      const q = `?entityId=${encodeURIComponent(t.entity)}`;
      const trust = must(
        await call(t, 'GET', `/v1/provider/merchant/trust${q}`, undefined, { asProvider: true }),
        'GET /v1/provider/merchant/trust',
      );
      const trusted = trust.data?.trusted;
      if (typeof trusted !== 'boolean') throw new Error(`GET /v1/provider/merchant/trust: ${JSON.stringify(trust)}`);
      must(
        await call(t, 'PATCH', '/v1/provider/merchant/trust', { entityId: t.entity, trusted }, { asProvider: true }),
        'PATCH /v1/provider/merchant/trust',
      );
      return `merchant.trust.updated: merchant ${t.entity} re-verified`;
    },
  },
  'merchant.discovery_limited': {
    how: `a customer look-up of the magic e-mail ${magicEmail('discovery.limited')}: answered 429 Discovery limit reached, as a merchant over its daily budget would be (the budget itself is not used)`,
    to: 'merchant',
    run: async (t) => {
      const r = await call(t, 'GET', `/v1/customer/banks?email=${encodeURIComponent(magicEmail('discovery.limited'))}`);
      const body = r.body as { message?: string } | undefined;
      if (r.status !== 429) throw new Error(`GET /v1/customer/banks: expected 429, got ${r.status} ${JSON.stringify(r.body)}`);
      return `merchant.discovery_limited: look-ups refused (${body?.message ?? 'Discovery limit reached'}) until the next Lagos midnight, for this look-up only`;
    },
  },
  'schedule.created': scheduleThen('schedule.created', 'a monthly schedule of NGN 100 from 30 days on (it stays active)', async () => {}),
  'schedule.paused': scheduleThen('schedule.paused', 'a schedule, then paused', (t, id) => post(t, `/v1/recurring/${id}/pause`)),
  'schedule.resumed': scheduleThen('schedule.resumed', 'a schedule, paused, then resumed', async (t, id) => {
    await post(t, `/v1/recurring/${id}/pause`);
    await post(t, `/v1/recurring/${id}/resume`);
  }),
  'schedule.cancelled': scheduleThen('schedule.cancelled', 'a schedule, then cancelled', async (t, id) => {
    must(await call(t, 'DELETE', `/v1/recurring/${id}`), 'DELETE /v1/recurring/{id}');
  }),
  'schedule.run_skipped': scheduleThen('schedule.run_skipped', 'a schedule, then its next run skipped', (t, id) =>
    post(t, `/v1/recurring/${id}/skip`, { reason: 'ops trigger' }),
  ),
  'schedule.amended': scheduleThen(
    'schedule.amended',
    'a schedule of NGN 100 amended to NGN 200; the simulated bank approves the new terms',
    async (t, id) => {
      must(await call(t, 'PATCH', `/v1/recurring/${id}`, { amount: 200 }), 'PATCH /v1/recurring/{id}');
    },
  ),
  'schedule.amendment_declined': scheduleThen(
    'schedule.amendment_declined',
    "a schedule of NGN 100 for recurring.limits amended to NGN 60,000, above that customer's single limit: the old terms hold",
    async (t, id) => {
      must(await call(t, 'PATCH', `/v1/recurring/${id}`, { amount: 60_000 }), 'PATCH /v1/recurring/{id}');
    },
    { customer: 'recurring.limits' },
  ),
  'schedule.completed': {
    how: 'a schedule of one NGN 100 billing due now; the simulated bank approves it',
    to: 'merchant',
    needs: 'premium',
    run: async (t) => `schedule.completed: schedule ${await oneBilling(t, 'schedule.completed')}`,
  },
  'schedule.run_failed': {
    how: 'a daily schedule for approve.two.payments (a consent for 2 payments), its runs made due until one is refused (it is then paused)',
    to: 'merchant',
    needs: 'premium',
    run: async (t) => {
      const id = await schedule(t, 'schedule.run_failed', { customer: 'approve.two.payments', startInDays: 0, frequency: 'daily' });
      await runUntil(t, id, 'schedule.run_failed');
      return `schedule.run_failed: schedule ${id}`;
    },
  },
  'refund.requested': {
    how: 'a payment, then a refund of NGN 50 (to the simulated bank; it stays pending)',
    to: 'bank',
    run: async (t) => {
      const { reference, refundId } = await refunded(t);
      return `refund.requested: refund ${refundId} of ${reference} sent to the customer's bank (listen with its key to receive it)`;
    },
  },
  'refund.updated': {
    how: 'a payment, a refund of NGN 50, and the sandbox helper that completes it',
    to: 'merchant',
    run: async (t) => {
      const { refundId } = await refunded(t);
      await post(t, `/v1/sandbox/refunds/${refundId}/complete`);
      return `refund.updated: refund ${refundId} completed`;
    },
  },
  'settlement.completed': {
    how: 'a payment, then the sandbox helper that settles all funds now',
    to: 'merchant',
    run: async (t) => {
      await paid(t);
      await post(t, '/v1/sandbox/settlements/run');
      return 'settlement.completed: funds settled';
    },
  },
  'webhook.test': {
    how: 'a test event to your first webhook endpoint (it is listed in the events API too)',
    to: 'endpoint',
    run: async (t) => {
      const endpoints = must(await call(t, 'GET', '/v1/webhooks/endpoints'), 'GET /v1/webhooks/endpoints').data.endpoints as {
        id: string;
      }[];
      if (!endpoints.length)
        throw new Error('webhook.test goes to one of your webhook endpoints: add one first (POST /v1/webhooks/endpoints)');
      const r = must(await call(t, 'POST', `/v1/webhooks/endpoints/${endpoints[0]!.id}/test`, {}), 'POST /v1/webhooks/endpoints/{id}/test');
      return `webhook.test: event ${r.data.eventId} to endpoint ${endpoints[0]!.id}`;
    },
  },
};

/**
 * Disputes (the sandbox's disputes step): they join TRIGGERS once the service emits these
 * event types. `dispute.created`: a payment, then the sandbox helper that has the simulated
 * bank dispute it; `dispute.updated`: that dispute, then accepted by the merchant (`lost`).
 */
async function disputed(t: Target): Promise<ApiEvent> {
  const reference = await paid(t);
  await post(t, `/v1/sandbox/transactions/${reference}/dispute`, { reason: 'unauthorized' });
  return waitForEvent(t, 'dispute.created', (e) => e.data.reference === reference, `payment ${reference}`);
}
const DISPUTE_TRIGGERS: Record<string, Trigger> = {
  'dispute.created': {
    how: 'a payment, then disputed by the simulated bank (sandbox helper)',
    to: 'merchant',
    run: async (t) => `dispute.created: dispute ${(await disputed(t)).data.disputeId}`,
  },
  'dispute.updated': {
    how: 'a disputed payment, then the dispute accepted by the merchant (lost)',
    to: 'merchant',
    run: async (t) => {
      const id = (await disputed(t)).data.disputeId as string;
      await post(t, `/v1/disputes/${id}/accept`);
      await waitForEvent(t, 'dispute.updated', (e) => e.data.disputeId === id, `dispute ${id}`);
      return `dispute.updated: dispute ${id} accepted (lost)`;
    },
  },
};
for (const [type, trigger] of Object.entries(DISPUTE_TRIGGERS)) if (isEventType(type)) TRIGGERS[type] = trigger;

export async function trigger(type: string, target: Target): Promise<string> {
  const t = TRIGGERS[type];
  if (!t) throw new Error(`cannot trigger "${type}"; supported: ${Object.keys(TRIGGERS).join(', ')}`);
  if (!target.key.startsWith('sk_sandbox_'))
    throw new Error('trigger needs a sandbox merchant key (sk_sandbox_...), or a provider key with --entity');
  return t.run(target);
}
