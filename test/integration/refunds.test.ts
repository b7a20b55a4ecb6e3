/**
 * Refunds: POST /v1/refunds/initiate and GET /v1/refunds/{refundId}/status.
 * Partial and full refunds, the refundable remainder under 20 concurrent requests, refusals
 * with exact messages that write nothing, sandbox auto-completion through the tick,
 * `refund.requested` to the bank and `refund.updated` to merchant and provider at each
 * status change, the ledger (unsettled while the batch is pending, else settled) and the
 * ledger invariant after every scenario. Real local stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundExpectedBy } from '../../functions/domain/business-days';
import { billKey, type BillItem } from '../../functions/bills/types';
import { ledgerPartition, readMerchantBatches, readMerchantEntries, SHARD_SPREAD_AFTER } from '../../functions/ledger/store';
import { captureLineKey, getSettlement, settlementId } from '../../functions/ledger/settlement-views';
import { failRefund, initiateRefund } from '../../functions/refunds/store';
import { getRefund, refundKey, type RefundItem } from '../../functions/refunds/views';
import { getItem, table } from '../../functions/platform/table';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../functions/platform/clients';
import { settleDue } from '../../functions/ledger/settlement';
import { completeRefund } from '../../functions/refunds/complete';
import { startTestApp, type TestApp } from '../support/app';
import { agreement, bankResponse, bill, events, inCreationOrder, receivedEvents, webhook, type Hook } from '../support/flows';
import { startReceiver, type Receiver } from '../../local/receiver';
import { expectLedgerInvariant, fixtureBill, lagos, scan, type Parties } from '../support/money-fixtures';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await startTestApp(); // REFUND_AUTO_COMPLETE_SECONDS: default (5)
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

const EXCEEDS = 'Refund exceeds refundable amount';
const NOT_REFUNDABLE = 'Only a succeeded transaction can be refunded';

interface Setup {
  merchant: { id: string; apiKey: string; name: string };
  provider: { id: string; apiKey: string };
  bank: { id: string; apiKey: string };
  hooks: { merchant: Hook; provider: Hook; bank: Hook };
  parties: Parties;
}

async function setup(): Promise<Setup> {
  const provider = await t.participant('provider');
  const merchant = await t.participant('merchant', { providerId: provider.id });
  const bank = await t.participant('bank');
  const hooks = {
    merchant: await webhook(t, rx, merchant, { label: 'm' }),
    provider: await webhook(t, rx, provider, { label: 'p' }),
    bank: await webhook(t, rx, bank, { label: 'b' }),
  };
  return {
    merchant,
    provider,
    bank,
    hooks,
    parties: { merchant: { id: merchant.id, name: merchant.name, providerId: provider.id }, bankId: bank.id },
  };
}

const initiate = (key: string, body: unknown, headers?: Record<string, string>) =>
  t.call('POST', '/v1/refunds/initiate', { key, body, headers });
const status = (key: string, refundId: string, headers?: Record<string, string>) =>
  t.call('GET', `/v1/refunds/${encodeURIComponent(refundId)}/status`, { key, headers });
const details = (key: string, reference: string) => t.call('GET', '/v1/transaction-details', { key, query: { reference } });
const balance = async (key: string) => (await t.call('GET', '/v1/balance/details', { key })).body.data;
const getBill = (id: string) => getItem<BillItem>(billKey(id));
const entries = readMerchantEntries;
const batches = readMerchantBatches;

async function tickAt(ms: number) {
  await t.app.tick(new Date(ms));
  await t.app.settle();
}

describe('initiate, sandbox completion, statuses and events', () => {
  it('partial refund: 201 pending -> (tick after 5 s) processing -> completed; funds leave the unsettled balance and its batch', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: lagos('2030-05-06T10:00:00') });

    const r = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 30.5, reason: 'Damaged item' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ statusCode: 201, success: true, message: 'Refund initiated' });
    const data = r.body.data;
    expect(data).toEqual({
      refundId: expect.stringMatching(/^rfd_/),
      reference: b.reference,
      amount: 30.5,
      currency: 'NGN',
      status: 'pending',
      expectedBy: expect.any(String),
    });
    const stored = (await getRefund(data.refundId))!;
    expect(data.expectedBy).toBe(refundExpectedBy(new Date(stored.createdAt)).toISOString());
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 3050, refundedAmount: 0, status: 'succeeded' });

    // The customer's bank is asked to execute it.
    const [req] = await events(rx, s.hooks.bank, 'refund.requested', 1, (e) => e.data.refundId === data.refundId);
    expect(req!.data).toEqual({
      refundId: data.refundId,
      billingRequestId: b.billingRequestId,
      reference: b.reference,
      bankTransactionId: b.bankTransactionId,
      customerId: b.customerId,
      entityId: s.merchant.id,
      merchantName: s.merchant.name,
      amount: 30.5,
      currency: 'NGN',
      reason: 'Damaged item',
      expectedBy: data.expectedBy,
      createdAt: stored.createdAt,
    });

    const pending = await status(s.merchant.apiKey, data.refundId);
    expect(pending.status).toBe(200);
    expect(pending.body.data).toEqual({
      refundId: data.refundId,
      reference: b.reference,
      amount: 30.5,
      currency: 'NGN',
      status: 'pending',
      reason: 'Damaged item',
      expectedBy: data.expectedBy,
      createdAt: stored.createdAt,
      updatedAt: stored.createdAt,
      completedAt: null,
    });
    expect((await details(s.merchant.apiKey, b.reference)).body.data).toMatchObject({ status: 'succeeded', refundedAmount: 0 });

    // Not yet: the sandbox bank takes REFUND_AUTO_COMPLETE_SECONDS (5).
    const created = Date.parse(stored.createdAt);
    await tickAt(created + 4_900);
    expect((await getRefund(data.refundId))!.status).toBe('pending');
    await tickAt(created + 5_000);
    const done = await status(s.merchant.apiKey, data.refundId);
    expect(done.body.data).toMatchObject({ status: 'completed', amount: 30.5, completedAt: new Date(created + 5_000).toISOString() });
    expect(done.body.data.updatedAt).toBe(done.body.data.completedAt);
    expect((await getRefund(data.refundId))!.dueSk).toBeUndefined();

    // refund.updated at each change, to the merchant and to its provider.
    for (const hook of [s.hooks.merchant, s.hooks.provider]) {
      const evs = inCreationOrder(await events(rx, hook, 'refund.updated', 2, (e) => e.data.refundId === data.refundId));
      expect(evs.map((e) => e.data.status)).toEqual(['processing', 'completed']);
      expect(evs[1]!.data).toMatchObject({
        refundId: data.refundId,
        reference: b.reference,
        entityId: s.merchant.id,
        billingRequestId: b.billingRequestId,
        amount: 30.5,
      });
    }

    // Money: the transaction is partially refunded; the unsettled balance and its batch shrink.
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 3050, refundedAmount: 3050 });
    expect((await details(s.merchant.apiKey, b.reference)).body.data).toMatchObject({
      status: 'partially_refunded',
      refundedAmount: 30.5,
      amount: 100,
    });
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 69.5, settledBalance: 0, nextSettlement: { amount: 69.5 } });
    const refundEntry = (await entries(s.merchant.id)).find((e) => e.kind === 'refund')!;
    expect(refundEntry).toMatchObject({
      debit: `merchant_unsettled:${s.merchant.id}`,
      credit: `bank:${s.bank.id}`,
      amount: 3050,
      refundId: data.refundId,
    });
    expect((await batches(s.merchant.id)).reduce((sum, x) => sum + x.amount, 0)).toBe(6950);
    await expectLedgerInvariant();

    // The rest (no amount: the whole remainder), completed by the sandbox helper's function.
    const rest = await initiate(s.merchant.apiKey, { reference: b.reference });
    expect(rest.status).toBe(201);
    expect(rest.body.data.amount).toBe(69.5);
    const completed = await completeRefund(rest.body.data.refundId, new Date());
    expect(completed!.status).toBe('completed');
    expect((await details(s.merchant.apiKey, b.reference)).body.data).toMatchObject({ status: 'refunded', refundedAmount: 100 });
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 0, totalBalance: 0, nextSettlement: { amount: 0 } });
    // Completing again changes nothing.
    expect((await completeRefund(rest.body.data.refundId, new Date()))!.completedAt).toBe(completed!.completedAt);

    // Nothing refundable is left.
    for (const body of [{ reference: b.reference }, { reference: b.reference, amount: 0.01 }]) {
      const again = await initiate(s.merchant.apiKey, body);
      expect(again.status).toBe(400);
      expect(again.body.message).toBe(EXCEEDS);
    }
    // The day's settlement moves nothing (all refunded): no settlement entry.
    await settleDue(s.merchant.id, new Date(), { includeFuture: true });
    expect((await entries(s.merchant.id)).filter((e) => e.kind === 'settlement')).toHaveLength(0);
    await expectLedgerInvariant();
  });

  it('after settlement the refund is taken from the settled balance; a refund initiated before and completed after too', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 50_000, capturedAt: lagos('2030-05-13T10:00:00') });
    const early = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 100 });
    expect(early.status).toBe(201);
    await settleDue(s.merchant.id, lagos('2030-05-14T00:00:00'));
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: 500 });

    const late = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 0.5 });
    expect(late.status).toBe(201);
    for (const id of [early.body.data.refundId, late.body.data.refundId])
      expect((await completeRefund(id, new Date()))!.status).toBe('completed');
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: 399.5, totalBalance: 399.5 });
    const refunds = (await entries(s.merchant.id)).filter((e) => e.kind === 'refund');
    expect(refunds.map((e) => e.debit)).toEqual([`merchant_settled:${s.merchant.id}`, `merchant_settled:${s.merchant.id}`]);
    expect((await getRefund(early.body.data.refundId))!.debitedBalance).toBe('settled');
    expect((await details(s.merchant.apiKey, b.reference)).body.data).toMatchObject({
      status: 'partially_refunded',
      refundedAmount: 100.5,
    });
    await expectLedgerInvariant();
  });

  it('a refund completed while its day is pending leaves the rest to settle', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 8_000, capturedAt: lagos('2030-05-20T10:00:00') });
    await fixtureBill({ parties: s.parties, amount: 2_000, capturedAt: lagos('2030-05-20T11:00:00') });
    const r = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 25 });
    await completeRefund(r.body.data.refundId, new Date());
    expect(await balance(s.merchant.apiKey)).toMatchObject({
      unsettledBalance: 75,
      nextSettlement: { amount: 75, date: '2030-05-20T23:00:00.000Z' },
    });
    await settleDue(s.merchant.id, lagos('2030-05-21T00:00:00'));
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: 75 });
    expect((await entries(s.merchant.id)).find((e) => e.kind === 'settlement')!.amount).toBe(7_500);
    await expectLedgerInvariant();
  });

  it('a failed refund releases its reservation (refund.updated failed); the amount is refundable again', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 3_000, capturedAt: lagos('2030-05-27T10:00:00') });
    const r = await initiate(s.merchant.apiKey, { reference: b.reference });
    expect(r.body.data.amount).toBe(30);
    const failed = await failRefund(r.body.data.refundId, 'account_closed', new Date());
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'account_closed' });
    expect((await status(s.merchant.apiKey, r.body.data.refundId)).body.data).toMatchObject({
      status: 'failed',
      failureReason: 'account_closed',
      completedAt: null,
    });
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 0, refundedAmount: 0 });
    await events(rx, s.hooks.merchant, 'refund.updated', 1, (e) => e.data.refundId === r.body.data.refundId && e.data.status === 'failed');
    // A failed refund never completes (the due item is gone too).
    expect((await completeRefund(r.body.data.refundId, new Date()))!.status).toBe('failed');
    expect((await getRefund(r.body.data.refundId))!.dueSk).toBeUndefined();
    const again = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 30 });
    expect(again.status).toBe(201);
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 30 });
    await expectLedgerInvariant();
  });

  it('live stage: no auto-completion (the bank confirms); the refund has no due item', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 1_000, capturedAt: lagos('2030-06-03T10:00:00') });
    const stage = process.env.STAGE;
    process.env.STAGE = 'live';
    let r;
    try {
      r = await initiateRefund({ merchantId: s.merchant.id, reference: b.reference, amount: 500 });
    } finally {
      process.env.STAGE = stage;
    }
    expect(r.ok).toBe(true);
    const item = (await getItem<RefundItem>(refundKey((r as { refund: RefundItem }).refund.refundId)))!;
    expect(item.status).toBe('pending');
    expect(item.dueSk).toBeUndefined();
    await expectLedgerInvariant();
  });
});

describe("a transaction's refunds (GET /v1/transaction-details)", () => {
  it('lists its refunds newest first, a failed one included, for the merchant and the bank; a billing refunded before refundIds too', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: lagos('2030-06-03T10:00:00') });
    const other = await fixtureBill({ parties: s.parties, amount: 2_000, capturedAt: lagos('2030-06-03T10:00:01') });
    expect((await details(s.merchant.apiKey, b.reference)).body.data.refunds).toEqual([]);
    const first = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 10, reason: 'Broken' });
    expect(first.status).toBe(201);
    await failRefund(first.body.data.refundId, 'account_closed', new Date());
    const second = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 5 });
    expect(second.status).toBe(201);
    expect((await initiate(s.merchant.apiKey, { reference: other.reference, amount: 1 })).status).toBe(201);

    const shown = (await details(s.merchant.apiKey, b.reference)).body.data.refunds;
    expect(shown.map((r: { refundId: string }) => r.refundId)).toEqual([second.body.data.refundId, first.body.data.refundId]);
    expect(shown[1]).toMatchObject({
      amount: 10,
      status: 'failed',
      failureReason: 'account_closed',
      reason: 'Broken',
      reference: b.reference,
    });
    expect(shown[0]).toMatchObject({ amount: 5, status: 'pending', reference: b.reference });
    // The customer's bank sees them too.
    const forBank = await t.call('GET', '/v1/transaction-details', { key: s.bank.apiKey, query: { reference: b.reference } });
    expect(forBank.body.data.refunds.map((r: { refundId: string }) => r.refundId)).toEqual([
      second.body.data.refundId,
      first.body.data.refundId,
    ]);

    // A billing refunded before its refunds' ids were kept on it: found among its merchant's refunds.
    await db().send(new UpdateCommand({ TableName: table(), Key: billKey(b.billingRequestId), UpdateExpression: 'REMOVE refundIds' }));
    expect((await getBill(b.billingRequestId))!.refundIds).toBeUndefined();
    const legacy = (await details(s.merchant.apiKey, b.reference)).body.data.refunds;
    expect(legacy.map((r: { refundId: string }) => r.refundId)).toEqual([second.body.data.refundId, first.body.data.refundId]);
  });
});

describe('refusals (exact messages; nothing written)', () => {
  it('unknown or foreign reference: 404 Transaction not found; a non-succeeded transaction: 409', async () => {
    const s = await setup();
    const other = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: lagos('2030-06-10T10:00:00') });
    for (const [key, reference] of [
      [s.merchant.apiKey, 'txn_doesnotexist'],
      [other.merchant.apiKey, b.reference],
    ] as const) {
      const r = await initiate(key, { reference, amount: 1 });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Transaction not found' });
    }
    for (const st of ['pending', 'declined', 'expired', 'failed'] as const) {
      const nb = await fixtureBill({ parties: s.parties, amount: 5_000, status: st });
      const r = await initiate(s.merchant.apiKey, { reference: nb.reference });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ statusCode: 409, success: false, message: NOT_REFUNDABLE });
      expect(await getBill(nb.billingRequestId)).toMatchObject({ refundReserved: 0 });
    }
    const over = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 50.01 });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ statusCode: 400, success: false, message: EXCEEDS });
    expect((await scan<RefundItem>('REFUND#')).filter((x) => x.merchantId === s.merchant.id)).toHaveLength(0);
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 0 });
  });

  it('bad bodies: 400 Invalid request parameters (or Invalid JSON body), nothing written; NGN 0.01 is the smallest refund', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: lagos('2030-06-10T10:00:00') });
    const bad: unknown[] = [
      {},
      { reference: '' },
      { reference: b.reference, amount: 0 },
      { reference: b.reference, amount: -5 },
      { reference: b.reference, amount: 1.005 },
      { reference: b.reference, amount: '10' },
      { reference: b.reference, amount: 10, currency: 'NGN' },
      { reference: b.reference, reason: '' },
      { reference: 42 },
    ];
    const before = (await scan('REFUND#')).length;
    for (const body of bad) {
      const r = await initiate(s.merchant.apiKey, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
      expect(r.body.code).toBe('invalid_request_parameters');
    }
    const raw = await t.call('POST', '/v1/refunds/initiate', { key: s.merchant.apiKey, rawBody: '{"reference":' });
    expect(raw.status).toBe(400);
    expect(raw.body.message).toBe('Invalid JSON body');
    expect((await scan('REFUND#')).length).toBe(before);
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundReserved: 0 });

    const tiny = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 0.01 });
    expect(tiny.status).toBe(201);
    expect(tiny.body.data.amount).toBe(0.01);
  });

  it('who may call: banks are refused; a provider acts for its merchant with X-Entity-Id', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: lagos('2030-06-10T10:00:00') });
    const byBank = await initiate(s.bank.apiKey, { reference: b.reference });
    expect(byBank.status).toBe(403);
    expect(byBank.body.message).toBe('Forbidden for this participant type');
    const byProvider = await initiate(s.provider.apiKey, { reference: b.reference, amount: 5 }, { 'x-entity-id': s.merchant.id });
    expect(byProvider.status).toBe(201);
    const read = await status(s.provider.apiKey, byProvider.body.data.refundId, { 'x-entity-id': s.merchant.id });
    expect(read.status).toBe(200);
    expect(read.body.data.refundId).toBe(byProvider.body.data.refundId);
  });
});

describe('GET /v1/refunds/{refundId}/status', () => {
  it("unknown, or another merchant's refund: 404 Refund not found", async () => {
    const s = await setup();
    const other = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: lagos('2030-06-10T10:00:00') });
    const r = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 1 });
    for (const [key, id] of [
      [s.merchant.apiKey, 'rfd_unknown'],
      [other.merchant.apiKey, r.body.data.refundId],
      [s.merchant.apiKey, 'x'.repeat(300)],
    ] as const) {
      const res = await status(key, id);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, success: false, message: 'Refund not found' });
    }
  });
});

describe('concurrency and idempotency', () => {
  it('20 parallel refunds never reserve more than the amount', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: lagos('2030-06-17T10:00:00') });
    const rs = await Promise.all(Array.from({ length: 20 }, () => initiate(s.merchant.apiKey, { reference: b.reference, amount: 7 })));
    const ok = rs.filter((r) => r.status === 201);
    for (const r of rs.filter((x) => x.status !== 201)) {
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.message).toBe(EXCEEDS);
    }
    expect(ok).toHaveLength(14); // 14 x 7.00 = 98.00 of 100.00; a 15th would exceed
    const reservedMinor = ok.reduce((sum, r) => sum + Math.round(r.body.data.amount * 100), 0);
    expect(reservedMinor).toBeLessThanOrEqual(10_000);
    expect((await getBill(b.billingRequestId))!.refundReserved).toBe(reservedMinor);
    expect((await scan<RefundItem>('REFUND#')).filter((x) => x.billingRequestId === b.billingRequestId)).toHaveLength(ok.length);

    // Completing all of them concurrently refunds exactly what was reserved.
    await Promise.all(ok.map((r) => completeRefund(r.body.data.refundId, new Date())));
    expect(await getBill(b.billingRequestId)).toMatchObject({ refundedAmount: reservedMinor });
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 2 });
    await expectLedgerInvariant();
  });

  it('20 parallel full refunds (no amount): exactly one is accepted', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 4_321, capturedAt: lagos('2030-06-17T10:00:00') });
    const rs = await Promise.all(Array.from({ length: 20 }, () => initiate(s.merchant.apiKey, { reference: b.reference })));
    const ok = rs.filter((r) => r.status === 201);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.data.amount).toBe(43.21);
    expect(rs.filter((r) => r.status === 400 && r.body.message === EXCEEDS)).toHaveLength(19);
    expect((await getBill(b.billingRequestId))!.refundReserved).toBe(4_321);
  });

  it('a retried initiate with the same Idempotency-Key creates one refund', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 9_000, capturedAt: lagos('2030-06-17T10:00:00') });
    const headers = { 'idempotency-key': `refund-${b.reference}` };
    const first = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 10 }, headers);
    const second = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 10 }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.refundId).toBe(first.body.data.refundId);
    expect((await getBill(b.billingRequestId))!.refundReserved).toBe(1_000);
    const mismatch = await initiate(s.merchant.apiKey, { reference: b.reference, amount: 11 }, headers);
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.message).toBe('Idempotency key reused with a different request');
  });
});

describe('a retry after an answer lost past the commit', () => {
  it('finds the refund the first attempt made (201, same refundId), never "exceeds" and never a second refund', async () => {
    const s = await setup();
    const b = await fixtureBill({ parties: s.parties, amount: 5_000, capturedAt: lagos('2030-06-17T10:00:00') });
    const headers = { 'idempotency-key': `lost-${b.reference}` };
    const first = await initiate(s.merchant.apiKey, { reference: b.reference }, headers);
    expect(first.status).toBe(201);
    // The answer was lost after the commit: a 5xx there releases the key (http/idempotency.ts),
    // so the client's retry runs the handler again. Simulate it by removing the record.
    const records = (await scan<{ pk: string; sk: string }>('IDEM#')).filter((r) => r.sk === 'IDEM');
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) await db().send(new DeleteCommand({ TableName: table(), Key: { pk: r.pk, sk: r.sk } }));
    const retry = await initiate(s.merchant.apiKey, { reference: b.reference }, headers);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.data).toEqual(first.body.data);
    expect((await scan<RefundItem>('REFUND#')).filter((x) => x.billingRequestId === b.billingRequestId)).toHaveLength(1);
    expect((await getBill(b.billingRequestId))!.refundReserved).toBe(5_000);
    // Without a key nothing changes: a second full refund is refused.
    const again = await initiate(s.merchant.apiKey, { reference: b.reference });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(EXCEEDS);
  });
});

describe('end to end through the API', () => {
  it('bill -> bank approval -> refund -> sandbox completion via the tick -> transaction refunded', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', withProvider: true, receiver: rx });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 120);
    const el = r.body[0];
    expect((await bankResponse(t, a.bank, el.billingRequestId, 'approve_recurring')).status).toBe(200);
    await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    const answered = await getItem<BillItem>(billKey(el.billingRequestId));
    expect(answered!.emits?.type).toBe('billing.response');

    const ref = await initiate(a.merchant.apiKey, { reference: el.reference, reason: 'Customer cancelled' });
    expect(ref.status).toBe(201);
    expect(ref.body.data).toMatchObject({ amount: 120, status: 'pending', reference: el.reference });
    await events(rx, a.hooks!.bank, 'refund.requested', 1, (e) => e.data.refundId === ref.body.data.refundId);
    // The refund's writes of the billing emit nothing of the billing's: they take its carried
    // billing.response off (platform/definitions.ts CARRIED_EVENT), so the stream never fans it out again.
    expect((await getItem<BillItem>(billKey(el.billingRequestId)))!.emits).toBeUndefined();

    const created = Date.parse((await getRefund(ref.body.data.refundId))!.createdAt);
    await tickAt(created + 5_000);
    expect((await status(a.merchant.apiKey, ref.body.data.refundId)).body.data.status).toBe('completed');
    const evs = inCreationOrder(
      await events(rx, a.hooks!.merchant, 'refund.updated', 2, (e) => e.data.refundId === ref.body.data.refundId),
    );
    expect(evs.map((e) => e.data.status)).toEqual(['processing', 'completed']);
    await events(rx, a.hooks!.provider!, 'refund.updated', 2, (e) => e.data.refundId === ref.body.data.refundId);

    const tx = await details(a.merchant.apiKey, el.reference);
    expect(tx.body.data).toMatchObject({ status: 'refunded', amount: 120, refundedAmount: 120 });
    expect(await balance(a.merchant.apiKey)).toMatchObject({ totalBalance: 0, unsettledBalance: 0, settledBalance: 0 });
    expect(receivedEvents(rx, a.hooks!.merchant, 'refund.updated').filter((e) => e.data.refundId === ref.body.data.refundId)).toHaveLength(
      2,
    );
    await t.app.settle();
    for (const hook of [a.hooks!.merchant, a.hooks!.provider!])
      expect(receivedEvents(rx, hook, 'billing.response').filter((e) => e.data.reference === el.reference)).toHaveLength(1);
    await expectLedgerInvariant();
  });
});

describe('money written before: captures of before partitions and of before issue 50 (release 4, DESIGN 10.6)', () => {
  it('captures stored the way they were before (entry in LEDGER#<m> or LEDGER#<m>#<n> beside its line, batch shard <day>#<n> in SETTLE#<m>) refund from their batch and settle with a later capture of the same day; the invariant holds', async () => {
    const s = await setup();
    const m = s.merchant.id;
    // Earlier captures until one is on a shard other than 0 (shard 0 is in SETTLE#<m> either way;
    // the day's first SHARD_SPREAD_AFTER captures all are).
    const before: BillItem[] = [];
    let refunded: BillItem | undefined;
    while (!refunded) {
      expect(before.length).toBeLessThan(SHARD_SPREAD_AFTER + 20);
      const b = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: lagos(`2030-05-20T10:${10 + before.length}:00`) });
      before.push(b);
      const e = (await entries(m)).find((x) => x.billingRequestId === b.billingRequestId)!;
      if (!e.batchSk!.endsWith('#p0')) refunded = b;
    }
    await toLayoutBefore(
      m,
      before.map((b) => b.billingRequestId),
      'oldest',
    );
    // A capture of release 4 before issue 50: its entry in its capture partition, its line apart.
    const mid = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: lagos('2030-05-20T10:50:00') });
    await toLayoutBefore(m, [mid.billingRequestId], 'partitions');
    const after = await fixtureBill({ parties: s.parties, amount: 10_000, capturedAt: lagos('2030-05-20T11:00:00') });
    const stored = await entries(m);
    expect(stored.find((e) => e.billingRequestId === refunded!.billingRequestId)).toMatchObject({
      pk: `LEDGER#${m}`,
      batchSk: expect.stringMatching(/^2030-05-21#[1-3]$/),
    });
    expect(stored.find((e) => e.billingRequestId === mid.billingRequestId)).toMatchObject({
      pk: `LEDGER#${m}#${ledgerPartition(mid.billingRequestId)}`,
      batchSk: expect.stringMatching(/^2030-05-21#p\d$/),
    });
    // Since issue 50 the entry is the line: one item in the settlement day's lines.
    const newEntry = stored.find((e) => e.billingRequestId === after.billingRequestId)!;
    expect(newEntry).toMatchObject({
      pk: `SLINE#${m}#2030-05-21`,
      kind: 'capture',
      type: 'payment',
      batchSk: expect.stringMatching(/^2030-05-21#p\d$/),
    });
    expect(await getItem(captureLineKey(m, '2030-05-21', after.createdAt, after.billingRequestId))).toEqual(newEntry);
    expect((await getBill(after.billingRequestId))!).toMatchObject({ entryInLine: true, settlementDate: '2030-05-21' });
    expect((await getBill(after.billingRequestId))!.ledgerPartition).toBeUndefined();
    expect(stored.filter((e) => e.kind === 'capture')).toHaveLength(before.length + 2);

    // The refunds of earlier captures find their entry and their batch shard where they were written.
    for (const [bill, amount] of [
      [refunded, 50],
      [mid, 30],
    ] as const) {
      const r = await initiate(s.merchant.apiKey, { reference: bill.reference, amount });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect((await completeRefund(r.body.data.refundId, new Date()))!.status).toBe('completed');
      expect((await getRefund(r.body.data.refundId))!.debitedBalance).toBe('unsettled');
    }
    const total = 100 * (before.length + 2) - 80;
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: total, settledBalance: 0 });
    await expectLedgerInvariant();

    // The day's due entry is on an earlier shard (<day>#<n>): the tick settles every kind of shard and line in one round.
    await tickAt(lagos('2030-05-21T00:00:00').getTime());
    expect(await balance(s.merchant.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: total });
    expect(await getSettlement(settlementId(m, '2030-05-21', 1))).toMatchObject({
      amount: total * 100,
      transactionCount: before.length + 2,
      refundCount: 2,
      linesComplete: true,
    });
    expect((await batches(m)).filter((b) => b.status === 'pending')).toEqual([]);
    await expectLedgerInvariant();
  });
});

/**
 * Rewrites these captures the way they were stored before (their entry and line were one item
 * since issue 50): `partitions` (release 4 until issue 50): the entry in `LEDGER#<m>#<n>` beside
 * its line, the bill's `ledgerPartition`; `oldest`: the entry in `LEDGER#<m>`, and every batch
 * shard of the merchant, and those lines' batchSk, keyed `<day>#<n>` in `SETTLE#<m>`.
 */
async function toLayoutBefore(merchantId: string, billingRequestIds: string[], layout: 'oldest' | 'partitions'): Promise<void> {
  const legacySk = (sk: string) => (layout === 'oldest' ? sk.replace('#p', '#') : sk);
  const send = (c: PutCommand | DeleteCommand | UpdateCommand) => db().send(c as never);
  for (const e of await readMerchantEntries(merchantId)) {
    if (!billingRequestIds.includes(e.billingRequestId!) || !e.pk.startsWith('SLINE#')) continue;
    const { type: _line, ...entry } = e;
    const pk = layout === 'oldest' ? `LEDGER#${merchantId}` : `LEDGER#${merchantId}#${ledgerPartition(e.billingRequestId!)}`;
    await send(new PutCommand({ TableName: table(), Item: { ...entry, pk, batchSk: legacySk(e.batchSk!) } }));
    await send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: e.pk, sk: e.sk },
        UpdateExpression: 'SET batchSk = :sk REMOVE kind, debit, credit, currency',
        ExpressionAttributeValues: { ':sk': legacySk(e.batchSk!) },
      }),
    );
    await send(
      new UpdateCommand({
        TableName: table(),
        Key: billKey(e.billingRequestId!),
        ...(layout === 'oldest'
          ? { UpdateExpression: 'REMOVE entryInLine' }
          : {
              UpdateExpression: 'SET ledgerPartition = :n REMOVE entryInLine',
              ExpressionAttributeValues: { ':n': ledgerPartition(e.billingRequestId!) },
            }),
      }),
    );
  }
  if (layout === 'oldest')
    for (const b of await readMerchantBatches(merchantId)) {
      await send(new DeleteCommand({ TableName: table(), Key: { pk: b.pk, sk: b.sk } }));
      await send(new PutCommand({ TableName: table(), Item: { ...b, pk: `SETTLE#${merchantId}`, sk: legacySk(b.sk) } }));
    }
}
