/**
 * No 5xx (DESIGN 8.1): every sandbox helper under 10 parallel calls answers only 200 or 409
 * (a helper that loses a race says so with a 409 and an exact message, never a 500), and the
 * outcome is applied once. Also: a path with malformed percent-encoding is the resource's 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/routes';
import type { TestApp } from '../support/app';
import { letSimulatedBankAnswer, magicEmail, startSandboxWorld, stopSandboxWorld } from '../support/sandbox-world';
import { getBill, ledgerProblems } from '../support/billing-table';
import { bill, events, lookupPhraseFor, merchantWithTrust, receivedEvents, webhook, type Hook, type Party } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { scheduleBody } from '../support/recurring-fixtures';
import { applicationBody, personCaller, signUpAndIn } from '../support/people';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
let sim: Party;
let simHook: Hook;

beforeAll(async () => {
  ({ t, rx, sim, simHook } = await startSandboxWorld());
});
afterAll(() => stopSandboxWorld({ t, rx }));

const email = magicEmail;
const bankAnswers = () => letSimulatedBankAnswer(t);

async function merchantSetup(opts: { trustLevel?: 'basic' | 'enhanced' | 'premium' } = {}): Promise<{ merchant: Party; hook: Hook }> {
  const { merchant } = await merchantWithTrust(t, opts);
  return { merchant, hook: await webhook(t, rx, merchant, { label: 'merchant' }) };
}

async function simulatedAgreement(m: { merchant: Party; hook: Hook }, local: string) {
  const lookupPhrase = await lookupPhraseFor(t, m.merchant, email(local), sim.id);
  const r = await t.call('POST', '/v1/billing/intent', {
    key: m.merchant.apiKey,
    body: { lookupPhrases: [lookupPhrase], currency: 'NGN', description: 'Races' },
  });
  expect(r.status).toBe(200);
  await bankAnswers();
  const [e] = await events(rx, m.hook, 'billing.intent.response', 1, (x) => x.data.lookupPhrase === lookupPhrase);
  expect(e!.data.customerAction).toBe('approved');
  return { agreementPhrase: e!.data.agreementPhrase as string, customerId: e!.data.customerId as string };
}

async function succeededBill(m: { merchant: Party; hook: Hook }, amount: number): Promise<string> {
  const a = await simulatedAgreement(m, 'approve.once');
  const ref = (await bill(t, m.merchant, [a.agreementPhrase], amount)).body[0].reference as string;
  await bankAnswers();
  const [res] = await events(rx, m.hook, 'billing.response', 1, (e) => e.data.reference === ref);
  expect(res!.data.status).toBe('succeeded');
  return ref;
}

/** 10 parallel identical calls: statuses and 409 messages. */
async function tenAtOnce(path: string, key: string) {
  const rs = await Promise.all(Array.from({ length: 10 }, () => t.call('POST', path, { key })));
  const statuses = rs.map((r) => r.status);
  for (const r of rs) expect([200, 409], `${path}: ${r.status} ${JSON.stringify(r.body)}`).toContain(r.status);
  return { rs, statuses, ok: rs.filter((r) => r.status === 200), conflicts: rs.filter((r) => r.status === 409) };
}

describe('sandbox helpers under 10 parallel calls: only 200 or 409, never 5xx', () => {
  it('POST /v1/sandbox/recurring/{id}/run: every call 200 (the run is due now, once) or 409 with the exact race message', async () => {
    const m = await merchantSetup({ trustLevel: 'premium' });
    const a = await simulatedAgreement(m, 'approve.recurring');
    for (let round = 0; round < 3; round++) {
      const created = await t.call('POST', '/v1/billing/recurring/create', {
        key: m.merchant.apiKey,
        body: scheduleBody(a, { amount: 100, startDate: new Date(Date.now() + 10 * 86_400_000).toISOString() }),
      });
      expect(created.status).toBe(201);
      const id = created.body.data.scheduleId as string;
      const before = Date.now();
      const { ok, conflicts } = await tenAtOnce(`/v1/sandbox/recurring/${id}/run`, m.merchant.apiKey);
      expect(ok.length).toBeGreaterThan(0);
      for (const r of ok) {
        expect(r.body).toMatchObject({ success: true, message: 'Recurring run is due now', data: { scheduleId: id, status: 'active' } });
        expect(Date.parse(r.body.data.nextBillingDate)).toBeGreaterThanOrEqual(before - 1000);
        expect(Date.parse(r.body.data.nextBillingDate)).toBeLessThanOrEqual(Date.now());
      }
      for (const r of conflicts) {
        expect(r.body).toMatchObject({
          statusCode: 409,
          success: false,
          message: 'Sandbox helper lost a race with a concurrent request; retry',
          code: 'sandbox_race_lost',
        });
      }
      // The schedule is due now and runs once.
      await t.app.tick(new Date());
      await t.app.settle();
      await events(rx, simHook, 'billing.request', 1, (e) => e.data.scheduleId === id);
      await t.app.tick(new Date());
      await t.app.settle();
      expect(receivedEvents(rx, simHook, 'billing.request').filter((e) => e.data.scheduleId === id)).toHaveLength(1);
    }
  });

  it('POST /v1/sandbox/billing-requests/{id}/expire: one 200, the rest 409 (not pending, or the race message); one billing.response', async () => {
    const m = await merchantSetup();
    const a = await simulatedAgreement(m, 'debit.no.answer');
    const el = (await bill(t, m.merchant, [a.agreementPhrase], 12)).body[0];
    const { ok, conflicts } = await tenAtOnce(`/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, m.merchant.apiKey);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.data).toMatchObject({ status: 'expired', reason: 'approval_expired' });
    for (const r of conflicts)
      expect(['Billing request is not pending', 'Billing request is being updated concurrently; retry shortly']).toContain(r.body.message);
    expect(await getBill(el.billingRequestId)).toMatchObject({ status: 'expired' });
    await t.app.settle();
    await events(rx, m.hook, 'billing.response', 1, (e) => e.data.reference === el.reference);
    await sleep(300);
    expect(receivedEvents(rx, m.hook, 'billing.response').filter((e) => e.data.reference === el.reference)).toHaveLength(1);
    expect(await ledgerProblems(m.merchant.id)).toEqual([]);
  });

  it('POST /v1/sandbox/refunds/{id}/complete: 200 (completed once) or 409 with the race message; the money moves once', async () => {
    const m = await merchantSetup();
    const ref = await succeededBill(m, 900);
    const init = await t.call('POST', '/v1/refunds/initiate', { key: m.merchant.apiKey, body: { reference: ref, amount: 300 } });
    expect(init.status).toBe(201);
    const refundId = init.body.data.refundId as string;
    const { ok, conflicts } = await tenAtOnce(`/v1/sandbox/refunds/${refundId}/complete`, m.merchant.apiKey);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of ok) expect(r.body.data).toMatchObject({ refundId, status: 'completed', amount: 300 });
    for (const r of conflicts) expect(r.body.message).toBe('Too many concurrent refunds for this transaction; retry shortly');
    const tx = await t.call('GET', '/v1/transaction-details', { key: m.merchant.apiKey, query: { reference: ref } });
    expect(tx.body.data).toMatchObject({ status: 'partially_refunded', refundedAmount: 300 });
    expect(await ledgerProblems(m.merchant.id)).toEqual([]);
  });

  it('POST /v1/sandbox/settlements/run: every run 200, each reporting the one settlement (whoever made it) or nothing; settled once', async () => {
    const m = await merchantSetup();
    await succeededBill(m, 1000);
    await succeededBill(m, 250.5);
    const { ok, conflicts } = await tenAtOnce('/v1/sandbox/settlements/run', m.merchant.apiKey);
    expect(conflicts).toEqual([]);
    expect(ok).toHaveLength(10);
    // A run that found the funds pending reports their settlement, also when a concurrent run made it.
    const reported = ok.map((r) => (r.body.data.settlements as { settlementId: string }[]).map((s) => s.settlementId));
    const ids = new Set(reported.flat());
    expect(ids.size).toBe(1);
    for (const r of ok) expect([0, 1250.5]).toContain(r.body.data.settledAmount);
    const bal = await t.call('GET', '/v1/balance/details', { key: m.merchant.apiKey });
    expect(bal.body.data).toMatchObject({ unsettledBalance: 0, settledBalance: 1250.5 });
    expect(await ledgerProblems(m.merchant.id)).toEqual([]);
  });

  it('GET /v1/sandbox/customers: 10 parallel reads, all 200', async () => {
    const m = await merchantSetup();
    const rs = await Promise.all(Array.from({ length: 10 }, () => t.call('GET', '/v1/sandbox/customers', { key: m.merchant.apiKey })));
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(200));
  });
});

describe('malformed percent-encoding in a path parameter: the resource 404, never 5xx (DESIGN 8.1)', () => {
  const NOT_FOUND: [RegExp, string][] = [
    [/^\/v1\/operator\/participants\//, 'Participant not found'],
    [/^\/v1\/operator\/keys\//, 'API key not found'],
    [/^\/v1\/operator\/providers\//, 'Participant not found'],
    [/^\/v1\/bank\/customers\/\{customerId\}\/consents$/, 'Customer not found'],
    [/^\/v1\/bank\/customers\/batches\//, 'Batch not found'],
    [/^\/v1\/bank\/customer-decisions\//, 'Customer decision not found'],
    [/^\/v1\/customer-decisions\//, 'Customer decision not found'],
    [/^\/v1\/((sandbox\/)?recurring|bank\/subscriptions)\//, 'Recurring schedule not found'],
    [/^\/v1\/(sandbox\/)?refunds\//, 'Refund not found'],
    [/^\/v1\/webhooks\/endpoints\//, 'Webhook endpoint not found'],
    [/^\/v1\/webhooks\/deliveries\//, 'Delivery not found'],
    [/^\/v1\/events\//, 'Event not found'],
    [/^\/v1\/sandbox\/billing-requests\//, 'Billing request not found'],
    [/^\/v1\/(operator|onboarding)\/applications\//, 'Application not found'],
    [/^\/v1\/keys\//, 'Key not found'],
    [/^\/v1\/settlements\//, 'Settlement not found'],
    [/^\/v1\/exports\//, 'Export not found'],
    [/^\/v1\/team\/members\//, 'Member not found'],
    [/^\/v1\/(team\/)?invitations\//, 'Invitation not found'],
    [/^\/v1\/sandbox\/test-clocks\//, 'Test clock not found'],
    [/^\/v1\/(bank\/)?disputes\//, 'Dispute not found'],
    [/^\/v1\/sandbox\/transactions\//, 'Transaction not found'],
  ];
  const BODIES: Record<string, unknown> = {
    'PUT /v1/bank/customer-decisions/{id}': { customerDecision: 'deny' },
    'PATCH /v1/operator/providers/{id}': { maxTrustLevel: 'basic' },
    'PATCH /v1/team/members/{userId}': { role: 'viewer' },
    'POST /v1/operator/applications/{id}/reject': { reason: 'Registration number does not match' },
    'PATCH /v1/recurring/{scheduleId}': { amount: 5 },
    'POST /v1/sandbox/test-clocks/{clockId}/advance': { frozenTime: '2030-01-01T00:00:00.000Z' },
    'POST /v1/bank/disputes/{disputeId}/resolve': { outcome: 'won' },
    'POST /v1/disputes/{disputeId}/respond': { evidence: { text: 'Delivered on the 3rd; signed receipt attached.' } },
  };

  it('every route with a path parameter, as its own caller: 404 with the resource not-found message', async () => {
    const keys: Record<string, string> = { operator: t.operatorKey };
    for (const k of ['bank', 'merchant', 'provider'] as const) keys[k] = (await t.participant(k)).apiKey;
    // People's routes (DESIGN 8.3) are called with a signed-in person's token: an owner of a
    // sandbox merchant (approved at once) for member routes, the same person for applicant routes.
    const who = await signUpAndIn();
    const applied = await personCaller(t, who)('POST', '/v1/onboarding/applications', { body: applicationBody('merchant') });
    expect(applied.status).toBe(201);
    const personHeaders = { 'x-participant-id': applied.body.data.participantId as string };
    const routes = ROUTES.filter((r) => r.path.includes('{'));
    expect(routes.length).toBeGreaterThan(15);
    for (const r of routes) {
      const expected = NOT_FOUND.find(([re]) => re.test(r.path))?.[1];
      expect(expected, r.path).toBeDefined();
      for (const seg of ['%E0%A4%A', '%', '%ZZ', 'abc%', '%C3%28', '%u0041', '%%30']) {
        const path = r.path.replace(/\{[^}]+\}/, seg);
        const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : (BODIES[`${r.method} ${r.path}`] ?? {});
        const res = r.caller
          ? await t.call(r.method, path, { key: who.accessToken, headers: personHeaders, body })
          : await t.call(r.method, path, { key: keys[r.kinds[0]!], body });
        expect(res.status, `${r.method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
        expect(res.body, `${r.method} ${path}`).toMatchObject({
          statusCode: 404,
          success: false,
          message: expected,
          type: 'not_found_error',
        });
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
    }
  });

  it('the two paths of the issue', async () => {
    const m = await t.participant('merchant');
    const a = await t.call('GET', '/v1/recurring/%E0%A4%A', { key: m.apiKey });
    expect(a.status).toBe(404);
    expect(a.body).toMatchObject({ statusCode: 404, success: false, message: 'Recurring schedule not found' });
    const b = await t.call('GET', '/v1/refunds/%/status', { key: m.apiKey });
    expect(b.status).toBe(404);
    expect(b.body).toMatchObject({ statusCode: 404, success: false, message: 'Refund not found' });
  });
});

describe("a deeply nested JSON body: 400 with the endpoint's message, never 5xx (DESIGN 9.2)", () => {
  /** `inner` wrapped in `levels` arrays: `[[...inner...]]`. */
  const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels);
  const deepSchedule = (metadataJson: string) =>
    JSON.stringify(scheduleBody({ customerId: 'cus_x', agreementPhrase: 'x' })).replace(/}$/, `,"metadata":${metadataJson}}`);
  const tooDeep = { path: '(root)', message: 'must nest at most 32 levels of arrays and objects' };

  it('recurring metadata 20,000 levels deep (a 500 before: the metadata check recursed) is 400 Invalid request parameters', async () => {
    const m = await t.participant('merchant');
    const r = await t.call('POST', '/v1/billing/recurring/create', { key: m.apiKey, rawBody: deepSchedule(`{"a":${nested(20_000)}}`) });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid request parameters', errors: [tooDeep] });
  });

  it('the bound is 32 levels in all: metadata that keeps the body at 32 reaches the handler (its own 403), 33 is refused', async () => {
    const m = await t.participant('merchant');
    // body (1) > metadata object (2) > 30 arrays (32)
    const at = await t.call('POST', '/v1/billing/recurring/create', { key: m.apiKey, rawBody: deepSchedule(`{"a":${nested(30)}}`) });
    expect(at.status, JSON.stringify(at.body)).toBe(403);
    expect(at.body.message).toBe('Merchant trust level does not allow recurring billing');
    const over = await t.call('POST', '/v1/billing/recurring/create', { key: m.apiKey, rawBody: deepSchedule(`{"a":${nested(31)}}`) });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ message: 'Invalid request parameters', errors: [tooDeep] });
  });

  it("other endpoints answer their own body message: provider merchants 'Invalid merchant data', billing intent 'Invalid request parameters'", async () => {
    const p = await t.participant('provider');
    const merchants = await t.call('POST', '/v1/provider/merchants', { key: p.apiKey, rawBody: `{"merchants":${nested(20_000, '{}')}}` });
    expect(merchants.status).toBe(400);
    expect(merchants.body).toMatchObject({ message: 'Invalid merchant data', errors: [tooDeep] });
    const m = await t.participant('merchant');
    const intent = await t.call('POST', '/v1/billing/intent', { key: m.apiKey, rawBody: `{"lookupPhrases":${nested(5_000, '"x"')}}` });
    expect(intent.status).toBe(400);
    expect(intent.body).toMatchObject({ message: 'Invalid request parameters', errors: [tooDeep] });
  });
});

describe('a date in a query outside 2000-01-01 to 2099-12-31: 400 with the parameter named, never 5xx (DESIGN 10.3)', () => {
  it('the volume report of 9999-12-31 (a 500 before: a date past the calendar), and every date parameter of every route', async () => {
    const m = await t.participant('merchant');
    const b = await t.participant('bank');
    const DAYS = 'must be from 2000-01-01 to 2099-12-31';
    const INSTANTS = `${DAYS} (UTC)`;
    const cases: [key: string, path: string, query: Record<string, string>, errors: [string, string][]][] = [
      [
        m.apiKey,
        '/v1/reports/volume',
        { from: '9999-12-31', to: '9999-12-31' },
        [
          ['from', DAYS],
          ['to', DAYS],
        ],
      ],
      [m.apiKey, '/v1/reports/volume', { from: '9999-12-10' }, [['from', DAYS]]],
      [m.apiKey, '/v1/reports/volume', { to: '0001-01-10' }, [['to', DAYS]]],
      [b.apiKey, '/v1/reports/volume', { from: '1999-12-31', to: '2000-01-01' }, [['from', DAYS]]],
      [b.apiKey, '/v1/reports/volume', { from: '2099-12-31', to: '2100-01-01' }, [['to', DAYS]]],
      [b.apiKey, '/v1/bank/settlement-reports', { businessDate: '9999-12-31' }, [['businessDate', DAYS]]],
      [b.apiKey, '/v1/bank/settlement-reports', { businessDate: '1970-01-01' }, [['businessDate', DAYS]]],
      [m.apiKey, '/v1/transaction-history', { from: '9999-12-31T23:59:59Z' }, [['from', INSTANTS]]],
      [m.apiKey, '/v1/transaction-history', { to: '0001-01-01T00:00:00Z' }, [['to', INSTANTS]]],
      [m.apiKey, '/v1/transaction-history', { from: '2000-01-01T00:30:00+01:00' }, [['from', INSTANTS]]],
      [m.apiKey, '/v1/events', { createdFrom: '2100-01-01T00:00:00Z' }, [['createdFrom', INSTANTS]]],
      [m.apiKey, '/v1/events', { createdTo: '1999-12-31T23:59:59.999Z' }, [['createdTo', INSTANTS]]],
    ];
    for (const [key, path, query, errors] of cases) {
      const r = await t.call('GET', path, { key, query });
      const what = `${path} ${JSON.stringify(query)}`;
      expect([r.status, r.body.message], what).toEqual([400, 'Invalid query parameters']);
      expect(r.body.errors, what).toEqual(errors.map(([p, message]) => ({ path: p, message })));
    }
    // The edges themselves are dates like any other.
    for (const [key, path, query] of [
      [b.apiKey, '/v1/reports/volume', { from: '2000-01-01', to: '2000-01-31' }],
      [b.apiKey, '/v1/reports/volume', { from: '2099-12-01', to: '2099-12-31' }],
      [b.apiKey, '/v1/bank/settlement-reports', { businessDate: '2099-12-31' }],
      [m.apiKey, '/v1/transaction-history', { from: '2000-01-01T00:00:00Z', to: '2099-12-31T23:59:59.999Z' }],
      [m.apiKey, '/v1/events', { createdFrom: '2000-01-01T00:00:00Z', createdTo: '2099-12-31T23:59:59Z' }],
    ] as const) {
      expect((await t.call('GET', path, { key, query })).status, `${path} ${JSON.stringify(query)}`).toBe(200);
    }
  });
});
