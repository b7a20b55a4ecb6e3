/**
 * Disputes (DESIGN 9.4): the bank opens (POST /v1/bank/disputes), the merchant reads, responds
 * or accepts, the bank resolves; expiry to `lost` through the due index; the money (the
 * merchant's balance, the disputes account, settlement lines `dispute` / `dispute_reversal`,
 * a negative net carried to the next settlement); refunds and disputes racing on one
 * transaction; events; exact refusals that write nothing; the invariants after each scenario.
 * Real local stack.
 */
import { describe, expect, it } from 'vitest';
import { billKey, type BillItem } from '../../functions/bills/types';
import { openDispute, resolveDispute } from '../../functions/disputes/store';
import { getDispute } from '../../functions/disputes/views';
import { settleDay } from '../../functions/ledger/settlement';
import { ledgerPk, type LedgerEntry } from '../../functions/ledger/store';
import { getItem, queryAll } from '../../functions/platform/table';
import { type TestApp, withAppAndReceiver } from '../support/app';
import { events, webhook, type Hook } from '../support/flows';
import { checkInvariants } from '../support/invariants';
import { fixtureBill, lagos, scan, type Parties } from '../support/money-fixtures';
import type { Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;
/** respondBy is 60 s after opening: the expiry test ticks past it. */
const RESPONSE_SECONDS = 60;
withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { DISPUTE_RESPONSE_SECONDS: String(RESPONSE_SECONDS), REFUND_AUTO_COMPLETE_SECONDS: '3600' },
);

interface Setup {
  merchant: { id: string; apiKey: string; name: string };
  provider: { id: string; apiKey: string };
  bank: { id: string; apiKey: string };
  otherBank: { id: string; apiKey: string };
  otherMerchant: { id: string; apiKey: string };
  hooks: { merchant: Hook; provider: Hook; bank: Hook };
  parties: Parties;
}

async function setup(): Promise<Setup> {
  const provider = await t.participant('provider');
  const merchant = await t.participant('merchant', { providerId: provider.id });
  const bank = await t.participant('bank');
  const otherBank = await t.participant('bank');
  const otherMerchant = await t.participant('merchant');
  const hooks = {
    merchant: await webhook(t, rx, merchant, { label: 'm' }),
    provider: await webhook(t, rx, provider, { label: 'p' }),
    bank: await webhook(t, rx, bank, { label: 'b' }),
  };
  return {
    merchant,
    provider,
    bank,
    otherBank,
    otherMerchant,
    hooks,
    parties: { merchant: { id: merchant.id, name: merchant.name, providerId: provider.id }, bankId: bank.id },
  };
}

const open = (key: string, body: unknown, headers?: Record<string, string>) => t.call('POST', '/v1/bank/disputes', { key, body, headers });
const respond = (key: string, id: string, text: string) =>
  t.call('POST', `/v1/disputes/${id}/respond`, { key, body: { evidence: { text } } });
const accept = (key: string, id: string) => t.call('POST', `/v1/disputes/${id}/accept`, { key, body: {} });
const resolve = (key: string, id: string, outcome: string) => t.call('POST', `/v1/bank/disputes/${id}/resolve`, { key, body: { outcome } });
const details = (key: string, reference: string) => t.call('GET', '/v1/transaction-details', { key, query: { reference } });
const balance = async (key: string) => (await t.call('GET', '/v1/balance/details', { key })).body.data;
const getBill = async (id: string) => (await getItem<BillItem>(billKey(id)))!;
const entries = (merchantId: string) =>
  queryAll<LedgerEntry>({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': ledgerPk(merchantId) },
    ConsistentRead: true,
  });

/**
 * The money invariants (ledger, the claim counters, each dispute's entries, settlement lines, the
 * trial balance). Fixture bills skip the billing flow's events and limit counters, and
 * deliveries may still be in flight: those checks belong to the end-to-end suites.
 */
async function expectInvariants() {
  await t.app.settle(); // the stream's fan-out of the last events
  const report = await checkInvariants();
  const flowOnly = /^limits: |: no billing\.(request|response) event|^delivery /;
  expect(report.problems.filter((p) => !flowOnly.test(p))).toEqual([]);
}

describe('open, read, respond, resolve', () => {
  it('the bank opens for what is left: 201 needs_response, the amount leaves the balance at once, dispute.created to merchant and provider', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: new Date() });
    const before = await balance(s.merchant.apiKey);

    const r = await open(s.bank.apiKey, { reference: b.reference, reason: 'unauthorized' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ statusCode: 201, success: true, message: 'Dispute opened' });
    const d = r.body.data;
    expect(d).toMatchObject({
      disputeId: expect.stringMatching(/^dsp_/),
      reference: b.reference,
      status: 'needs_response',
      amount: 100,
      reason: 'unauthorized',
      entityId: s.merchant.id,
      evidence: null,
      closedAt: null,
    });
    expect(Date.parse(d.respondBy) - Date.parse(d.createdAt)).toBe(RESPONSE_SECONDS * 1000);

    // Money: out of the merchant's balance into the disputes account, in the same transaction.
    const after = await balance(s.merchant.apiKey);
    expect(before).toMatchObject({ totalBalance: 100, unsettledBalance: 100 });
    expect(after).toMatchObject({ totalBalance: 0, unsettledBalance: 0 });
    const es = await entries(s.merchant.id);
    const opened = es.find((e) => e.entryId === `dispute:${d.disputeId}`)!;
    expect(opened).toMatchObject({ debit: `merchant_unsettled:${s.merchant.id}`, credit: `disputes:${s.merchant.id}`, amount: 10_000 });

    // The transaction shows it; the claim rule counts it.
    expect(await getBill(b.billingRequestId)).toMatchObject({
      refundReserved: 10_000,
      disputedAmount: 10_000,
      disputeStatus: 'needs_response',
    });
    for (const key of [s.merchant.apiKey, s.bank.apiKey]) {
      const tx = await details(key, b.reference);
      expect(tx.body.data).toMatchObject({ disputedAmount: 100, disputeStatus: 'needs_response', status: 'succeeded' });
    }
    const history = await t.call('GET', '/v1/transaction-history', { key: s.merchant.apiKey });
    expect(history.body.data.transactions.find((x: { reference: string }) => x.reference === b.reference)).toMatchObject({
      disputedAmount: 100,
      disputeStatus: 'needs_response',
    });

    const [created] = await events(rx, s.hooks.merchant, 'dispute.created', 1, (e) => e.data.disputeId === d.disputeId);
    expect(created!.data).toMatchObject({
      disputeId: d.disputeId,
      status: 'needs_response',
      amount: 100,
      actor: 'bank',
      entityId: s.merchant.id,
    });
    expect(created!.data.evidence).toBeUndefined();
    await events(rx, s.hooks.provider, 'dispute.created', 1, (e) => e.data.disputeId === d.disputeId);

    // Reads: merchant, provider for it, bank; lists with status and reference.
    const mine = await t.call('GET', `/v1/disputes/${d.disputeId}`, { key: s.merchant.apiKey });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual(d);
    const viaProvider = await t.call('GET', `/v1/disputes/${d.disputeId}`, {
      key: s.provider.apiKey,
      headers: { 'X-Entity-Id': s.merchant.id },
    });
    expect(viaProvider.body.data).toEqual(d);
    expect((await t.call('GET', `/v1/bank/disputes/${d.disputeId}`, { key: s.bank.apiKey })).body.data).toEqual(d);
    const list = await t.call('GET', '/v1/disputes', { key: s.merchant.apiKey, query: { status: 'needs_response' } });
    expect(list.body.data).toEqual({ disputes: [d], hasMore: false });
    expect((await t.call('GET', '/v1/disputes', { key: s.merchant.apiKey, query: { status: 'won' } })).body.data.disputes).toEqual([]);
    expect(
      (await t.call('GET', '/v1/bank/disputes', { key: s.bank.apiKey, query: { reference: b.reference } })).body.data.disputes,
    ).toEqual([d]);

    // Nothing left to dispute or refund.
    const again = await open(s.bank.apiKey, { reference: b.reference, reason: 'duplicate' });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Dispute amount exceeds the disputable amount');
    const refund = await t.call('POST', '/v1/refunds/initiate', { key: s.merchant.apiKey, body: { reference: b.reference, amount: 1 } });
    expect(refund.status).toBe(400);
    expect(refund.body.message).toBe('Refund exceeds refundable amount');
    await expectInvariants();
  });

  it('respond → under_review; the bank resolves won: the money returns to the balance; closed disputes refuse every change', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: new Date() });
    const d = (await open(s.bank.apiKey, { reference: b.reference, reason: 'not_received', amount: 20 })).body.data;
    expect(d.amount).toBe(20);

    const text = 'Delivered on 3 May.\nSigned receipt attached.';
    const r = await respond(s.merchant.apiKey, d.disputeId, text);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'under_review', evidence: { text, submittedAt: expect.any(String) }, closedAt: null });
    const [updated] = await events(rx, s.hooks.merchant, 'dispute.updated', 1, (e) => e.data.disputeId === d.disputeId);
    expect(updated!.data).toMatchObject({ status: 'under_review', actor: 'merchant', evidenceSubmittedAt: expect.any(String) });
    await events(rx, s.hooks.bank, 'dispute.updated', 1, (e) => e.data.disputeId === d.disputeId && e.data.status === 'under_review');

    for (const second of [await respond(s.merchant.apiKey, d.disputeId, 'again'), await accept(s.merchant.apiKey, d.disputeId)]) {
      expect(second.status).toBe(409);
      expect(second.body.message).toBe('Dispute has already been answered');
    }

    const won = await resolve(s.bank.apiKey, d.disputeId, 'won');
    expect(won.status).toBe(200);
    expect(won.body.data).toMatchObject({ status: 'won', closedBy: 'bank', closedAt: expect.any(String) });
    await events(rx, s.hooks.merchant, 'dispute.updated', 1, (e) => e.data.disputeId === d.disputeId && e.data.status === 'won');
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 0, disputedAmount: 0, disputeStatus: 'won' });
    const es = await entries(s.merchant.id);
    expect(es.find((e) => e.entryId === `dispute_reversal:${d.disputeId}`)).toMatchObject({
      debit: `disputes:${s.merchant.id}`,
      credit: `merchant_unsettled:${s.merchant.id}`,
      amount: 2_000,
    });
    expect((await details(s.merchant.apiKey, b.reference)).body.data).toMatchObject({ disputedAmount: 0, disputeStatus: 'won' });

    for (const late of [
      await resolve(s.bank.apiKey, d.disputeId, 'lost'),
      await respond(s.merchant.apiKey, d.disputeId, 'late'),
      await accept(s.merchant.apiKey, d.disputeId),
    ]) {
      expect(late.status).toBe(409);
      expect(late.body.message).toBe('Dispute is closed');
    }
    await expectInvariants();
  });

  it('accept → lost (the bank keeps it); resolve lost from needs_response; the transaction can still be refunded for the rest', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: new Date() });
    const d1 = (await open(s.bank.apiKey, { reference: b.reference, reason: 'duplicate', amount: 30 })).body.data;
    const a = await accept(s.merchant.apiKey, d1.disputeId);
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ status: 'lost', closedBy: 'merchant' });
    expect((await entries(s.merchant.id)).find((e) => e.entryId === `dispute_lost:${d1.disputeId}`)).toMatchObject({
      debit: `disputes:${s.merchant.id}`,
      credit: `bank:${s.bank.id}`,
      amount: 3_000,
    });

    const d2 = (await open(s.bank.apiKey, { reference: b.reference, reason: 'amount_incorrect', amount: 20 })).body.data;
    const lost = await resolve(s.bank.apiKey, d2.disputeId, 'lost');
    expect(lost.body.data).toMatchObject({ status: 'lost', closedBy: 'bank' });
    // 100 − 30 − 20 disputed (lost): 50 left for refunds.
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 5_000, disputedAmount: 5_000, disputeStatus: 'lost' });
    const tooMuch = await t.call('POST', '/v1/refunds/initiate', {
      key: s.merchant.apiKey,
      body: { reference: b.reference, amount: 50.01 },
    });
    expect(tooMuch.status).toBe(400);
    const rest = await t.call('POST', '/v1/refunds/initiate', { key: s.merchant.apiKey, body: { reference: b.reference } });
    expect(rest.status).toBe(201);
    expect(rest.body.data.amount).toBe(50);
    await expectInvariants();
  });
});

describe('refusals write nothing; isolation', () => {
  it('exact messages: another bank, unknown, not succeeded, too old, too much; another participant cannot see or touch it', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: new Date() });
    const pending = await fixtureBill({ parties: s.parties, amount: 10_000 });
    const old = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: new Date(Date.now() - 121 * 86_400_000) });
    const before = (await scan('DISPUTE#')).length;
    const cases: [string, unknown, number, string][] = [
      [s.otherBank.apiKey, { reference: b.reference, reason: 'unauthorized' }, 404, 'Transaction not found'],
      [s.bank.apiKey, { reference: 'txn_unknown', reason: 'unauthorized' }, 404, 'Transaction not found'],
      [s.bank.apiKey, { reference: pending.reference, reason: 'unauthorized' }, 409, 'Only a succeeded transaction can be disputed'],
      [s.bank.apiKey, { reference: old.reference, reason: 'unauthorized' }, 400, 'Transaction can no longer be disputed'],
      [
        s.bank.apiKey,
        { reference: b.reference, reason: 'unauthorized', amount: 100.01 },
        400,
        'Dispute amount exceeds the disputable amount',
      ],
      [s.bank.apiKey, { reference: b.reference, reason: 'fraud' }, 400, 'Invalid request parameters'],
      [s.bank.apiKey, { reference: b.reference, reason: 'other', amount: 0 }, 400, 'Invalid request parameters'],
      [s.merchant.apiKey, { reference: b.reference, reason: 'other' }, 403, 'Forbidden for this participant type'],
    ];
    for (const [key, body, status, message] of cases) {
      const r = await open(key, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.message).toBe(message);
    }
    expect((await scan('DISPUTE#')).length).toBe(before);
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 0 });

    const d = (await open(s.bank.apiKey, { reference: b.reference, reason: 'other', amount: 1 })).body.data;
    for (const [method, path, key, body] of [
      ['GET', `/v1/disputes/${d.disputeId}`, s.otherMerchant.apiKey, undefined],
      ['POST', `/v1/disputes/${d.disputeId}/respond`, s.otherMerchant.apiKey, { evidence: { text: 'x' } }],
      ['POST', `/v1/disputes/${d.disputeId}/accept`, s.otherMerchant.apiKey, {}],
      ['GET', `/v1/bank/disputes/${d.disputeId}`, s.otherBank.apiKey, undefined],
      ['POST', `/v1/bank/disputes/${d.disputeId}/resolve`, s.otherBank.apiKey, { outcome: 'won' }],
      ['GET', '/v1/disputes/dsp_nothere', s.merchant.apiKey, undefined],
    ] as const) {
      const r = await t.call(method, path, { key, body });
      expect(r.status, path).toBe(404);
      expect(r.body.message).toBe('Dispute not found');
    }
    expect((await t.call('GET', '/v1/disputes', { key: s.otherMerchant.apiKey })).body.data.disputes).toEqual([]);
    expect((await t.call('GET', '/v1/bank/disputes', { key: s.otherBank.apiKey })).body.data.disputes).toEqual([]);
    const badText = await respond(s.merchant.apiKey, d.disputeId, 'x'.repeat(5001));
    expect(badText.status).toBe(400);
    expect((await respond(s.merchant.apiKey, d.disputeId, '')).status).toBe(400);
    expect((await getDispute(d.disputeId))!.status).toBe('needs_response');
    await expectInvariants();
  });
});

describe('expiry and the deadline', () => {
  it('past respondBy without an answer the tick makes it lost (actor system); an answer after respondBy is 409 and loses it', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: new Date() });
    const d = (await open(s.bank.apiKey, { reference: b.reference, reason: 'cancelled_recurring', amount: 10 })).body.data;
    await t.app.tick(new Date(Date.parse(d.respondBy) - 5_000));
    await t.app.settle();
    expect((await getDispute(d.disputeId))!.status).toBe('needs_response');
    await t.app.tick(new Date(Date.parse(d.respondBy) + 1_000));
    await t.app.settle();
    expect(await getDispute(d.disputeId)).toMatchObject({ status: 'lost', closedBy: 'system' });
    const [e] = await events(rx, s.hooks.merchant, 'dispute.updated', 1, (x) => x.data.disputeId === d.disputeId);
    expect(e!.data).toMatchObject({ status: 'lost', actor: 'system' });

    // Opened two minutes ago (respondBy passed, the tick not run yet): the answer closes it as lost.
    const late = await openDispute({
      bankId: s.bank.id,
      reference: b.reference,
      reason: 'other',
      amount: 500,
      now: () => new Date(Date.now() - 120_000),
    });
    expect(late.ok).toBe(true);
    const id = late.ok ? late.dispute.disputeId : '';
    const r = await respond(s.merchant.apiKey, id, 'too late');
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Dispute is closed');
    expect(await getDispute(id)).toMatchObject({ status: 'lost', closedBy: 'system' });
    await expectInvariants();
  });
});

describe('concurrency', () => {
  it('20 concurrent disputes and refunds of 7.00 on a 100.00 transaction: exactly 14 accepted, never more than the amount', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: new Date() });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? open(s.bank.apiKey, { reference: b.reference, reason: 'duplicate', amount: 7 })
          : t.call('POST', '/v1/refunds/initiate', { key: s.merchant.apiKey, body: { reference: b.reference, amount: 7 } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 201).length, JSON.stringify(results.map((r) => r.body.message))).toBe(14);
    expect(statuses.filter((x) => x !== 201).every((x) => x === 400)).toBe(true);
    const bill = await getBill(b.billingRequestId);
    expect(bill.refundReserved).toBe(9_800);
    const disputes = results.filter((r, i) => i % 2 === 0 && r.status === 201).length;
    expect(bill.disputedAmount ?? 0).toBe(disputes * 700);
    await expectInvariants();
  }, 60_000);
});

describe('settlement lines and the trial balance', () => {
  it('a dispute after its payment settled takes the next settlement below zero: carried forward, netted by the next payments; won comes back as dispute_reversal', async () => {
    const s = await setup();
    const m = s.merchant.id;
    const pay1 = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: lagos('2030-05-06T10:00:00') }); // settles Tue 7 May
    const first = await settleDay(m, '2030-05-07', lagos('2030-05-07T00:00:00'));
    expect(first).toMatchObject({ amount: 10_000 });

    const opened = await openDispute({
      bankId: s.bank.id,
      reference: pay1.reference,
      reason: 'unauthorized',
      amount: 3_000,
      now: () => lagos('2030-05-07T09:00:00'),
    });
    expect(opened.ok).toBe(true);
    const disputeId = opened.ok ? opened.dispute.disputeId : '';
    const negative = (await settleDay(m, '2030-05-08', lagos('2030-05-08T00:00:00')))!;
    expect(negative.amount).toBe(0);
    const detail = async (id: string) => (await t.call('GET', `/v1/settlements/${id}`, { key: s.merchant.apiKey })).body.data;
    expect((await detail(negative.settlementId)).lines).toEqual([
      { reference: pay1.reference, type: 'dispute', amount: -30 },
      { reference: negative.settlementId, type: 'carried_forward', amount: 30 },
    ]);

    await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: lagos('2030-05-08T10:00:00') }); // settles Thu 9 May
    const netted = (await settleDay(m, '2030-05-09', lagos('2030-05-09T00:00:00')))!;
    expect(netted.amount).toBe(2_000);
    const lines = (await detail(netted.settlementId)).lines;
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(
      expect.arrayContaining([
        { reference: negative.settlementId, type: 'brought_forward', amount: -30 },
        expect.objectContaining({ type: 'payment', amount: 50 }),
      ]),
    );

    const won = await resolveDispute(disputeId, 'won', lagos('2030-05-09T09:00:00'));
    expect(won.ok).toBe(true);
    const reversal = (await settleDay(m, '2030-05-10', lagos('2030-05-10T00:00:00')))!;
    expect(reversal.amount).toBe(3_000);
    expect((await detail(reversal.settlementId)).lines).toEqual([{ reference: pay1.reference, type: 'dispute_reversal', amount: 30 }]);

    const tb = await t.call('GET', '/v1/operator/ledger/trial-balance', { key: t.operatorKey });
    expect(tb.body.data.balanced).toBe(true);
    expect(tb.body.data.accounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ account: `disputes:${m}`, type: 'disputes', participantId: m, debit: 30, credit: 30 }),
      ]),
    );
    await expectInvariants();
  });
});
