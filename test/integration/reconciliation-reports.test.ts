/**
 * Reconciliation reports (DESIGN 8.8): the bank settlement report per business
 * day and the operator's trial balance. Real local stack.
 */
import { describe, expect, it } from 'vitest';
import { lagosDate } from '../../functions/domain/lagos-time';
import { completeRefund } from '../../functions/refunds/complete';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { agreement, bankResponse, bill } from '../support/flows';
import { expectLedgerInvariant, fixtureBill, lagos } from '../support/money-fixtures';

let t: TestApp;

withAppAndReceiver((app) => {
  t = app;
});

const report = (key: string, businessDate: string) => t.call('GET', '/v1/bank/settlement-reports', { key, query: { businessDate } });
const sum = (xs: number[]) => Math.round(xs.reduce((s, x) => s + x * 100, 0)) / 100;

describe('GET /v1/bank/settlement-reports', () => {
  it("equals the sum of its customers' succeeded billings of that day, per merchant; other days, banks and outcomes are left out", async () => {
    const bank = await t.participant('bank');
    const otherBank = await t.participant('bank');
    const m1 = await t.participant('merchant');
    const m2 = await t.participant('merchant');
    const parties = (m: { id: string; name: string }, bankId = bank.id) => ({ merchant: { id: m.id, name: m.name }, bankId });
    const day = '2030-08-05';
    const made = [
      { m: m1, amount: 1_000_00, at: `${day}T00:00:00` },
      { m: m1, amount: 2_50, at: `${day}T13:30:00` },
      { m: m2, amount: 75_25, at: `${day}T23:59:59` },
    ];
    for (const x of made) await fixtureBill({ parties: parties(x.m), amount: x.amount, capturedAt: lagos(x.at) });
    // Not that day, not this bank, not succeeded.
    await fixtureBill({ parties: parties(m1), amount: 9_99, capturedAt: lagos('2030-08-04T23:59:59') });
    await fixtureBill({ parties: parties(m1), amount: 8_88, capturedAt: lagos('2030-08-06T00:00:00') });
    await fixtureBill({ parties: parties(m1, otherBank.id), amount: 7_77, capturedAt: lagos(`${day}T12:00:00`) });
    await fixtureBill({ parties: parties(m1), amount: 6_66, createdAt: lagos(`${day}T12:00:00`), status: 'declined' });
    await fixtureBill({ parties: parties(m2), amount: 5_55, createdAt: lagos(`${day}T12:00:00`) }); // pending

    const r = await report(bank.apiKey, day);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('Settlement report retrieved');
    const total = sum(made.map((x) => x.amount / 100));
    expect(r.body.data).toEqual({
      businessDate: day,
      debits: total,
      credits: 0,
      net: total,
      transactionCount: 3,
      byMerchant: [
        { entityId: m1.id, merchantName: m1.name, amount: 1002.5, count: 2 },
        { entityId: m2.id, merchantName: m2.name, amount: 75.25, count: 1 },
      ].sort((a, b) => (a.entityId < b.entityId ? -1 : 1)),
    });
    expect(sum(r.body.data.byMerchant.map((x: { amount: number }) => x.amount))).toBe(r.body.data.net);
    // The same figure from the bank's own transaction list of that day.
    const hist = await t.call('GET', '/v1/transaction-history', {
      key: bank.apiKey,
      query: { status: 'succeeded', from: `${day}T00:00:00+01:00`, to: `${day}T23:59:59.999+01:00`, limit: '100' },
    });
    expect(hist.status).toBe(200);
    expect(sum(hist.body.data.transactions.map((x: { amount: number }) => x.amount))).toBe(total);

    // Nothing on a quiet day; another bank sees only its own.
    expect((await report(bank.apiKey, '2030-08-07')).body.data).toEqual({
      businessDate: '2030-08-07',
      debits: 0,
      credits: 0,
      net: 0,
      transactionCount: 0,
      byMerchant: [],
    });
    expect((await report(otherBank.apiKey, day)).body.data).toMatchObject({ debits: 7.77, transactionCount: 1 });
    await expectLedgerInvariant();
  });

  it('through the API: an approved bill counts on its day, a denied one does not; a completed refund is a credit on its day', async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const ok = (await bill(t, a.merchant, [a.agreementPhrase], 45.5)).body[0];
    const no = (await bill(t, a.merchant, [a.agreementPhrase], 12)).body[0];
    expect((await bankResponse(t, a.bank, ok.billingRequestId, 'approve_once')).status).toBe(200);
    expect((await bankResponse(t, a.bank, no.billingRequestId, 'deny', null)).status).toBe(200);
    const today = lagosDate(new Date());
    const r1 = await report(a.bank.apiKey, today);
    expect(r1.body.data).toMatchObject({
      debits: 45.5,
      credits: 0,
      net: 45.5,
      transactionCount: 1,
      byMerchant: [{ entityId: a.merchant.id, amount: 45.5, count: 1 }],
    });
    const refund = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: ok.reference, amount: 5.5 } });
    expect(refund.status).toBe(201);
    await completeRefund(refund.body.data.refundId, new Date());
    const r2 = await report(a.bank.apiKey, lagosDate(new Date()));
    expect(r2.body.data).toMatchObject({
      debits: 45.5,
      credits: 5.5,
      net: 40,
      transactionCount: 1,
      byMerchant: [{ entityId: a.merchant.id, amount: 40, count: 1 }],
    });
  });

  it('refuses a missing or impossible date (400, nothing read) and every caller but a bank (403)', async () => {
    const bank = await t.participant('bank');
    for (const q of [
      {},
      { businessDate: '2030-02-30' },
      { businessDate: '2030-8-5' },
      { businessDate: '2030-08-05T00:00:00Z' },
      { businessDate: '2030-08-05', extra: '1' },
    ]) {
      const r = await t.call('GET', '/v1/bank/settlement-reports', { key: bank.apiKey, query: q as Record<string, string> });
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body.message).toBe('Invalid query parameters');
    }
    for (const type of ['merchant', 'provider'] as const) {
      const p = await t.participant(type);
      const r = await report(p.apiKey, '2030-08-05');
      expect(r.status).toBe(403);
      expect(r.body.message).toBe('Forbidden for this participant type');
    }
  });
});

describe('GET /v1/operator/ledger/trial-balance', () => {
  it('per account debits and credits from the ledger entries; balanced after captures, refunds and settlements', async () => {
    const bank = await t.participant('bank');
    const m = await t.participant('merchant');
    const b = await fixtureBill({
      parties: { merchant: { id: m.id, name: m.name }, bankId: bank.id },
      amount: 200_00,
      capturedAt: lagos('2030-09-02T10:00:00'),
    });
    const refund = await t.call('POST', '/v1/refunds/initiate', { key: m.apiKey, body: { reference: b.reference, amount: 50 } });
    await completeRefund(refund.body.data.refundId, new Date());
    await t.app.tick(new Date('2030-09-02T23:00:00.000Z'));
    await t.app.settle();

    const r = await t.call('GET', '/v1/operator/ledger/trial-balance', { key: t.operatorKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('Trial balance retrieved');
    const { accounts, totalDebit, totalCredit, balanced } = r.body.data;
    expect(balanced).toBe(true);
    expect(totalDebit).toBe(totalCredit);
    const acct = (name: string) => accounts.find((x: { account: string }) => x.account === name);
    // capture 200 bank -> unsettled; refund 50 unsettled -> bank; settlement 150 unsettled -> settled.
    // Each account typed and named by its participant.
    const of = (p: { id: string; name: string }) => ({ participantId: p.id, participantName: p.name });
    expect(acct(`bank:${bank.id}`)).toEqual({ account: `bank:${bank.id}`, type: 'bank', ...of(bank), debit: 200, credit: 50 });
    expect(acct(`merchant_unsettled:${m.id}`)).toEqual({
      account: `merchant_unsettled:${m.id}`,
      type: 'merchant_unsettled',
      ...of(m),
      debit: 200,
      credit: 200,
    });
    expect(acct(`merchant_settled:${m.id}`)).toEqual({
      account: `merchant_settled:${m.id}`,
      type: 'merchant_settled',
      ...of(m),
      debit: 0,
      credit: 150,
    });
    expect(sum(accounts.map((x: { debit: number }) => x.debit))).toBe(totalDebit);
    expect(sum(accounts.map((x: { credit: number }) => x.credit))).toBe(totalCredit);

    for (const type of ['bank', 'merchant', 'provider'] as const) {
      const p = await t.participant(type);
      const refused = await t.call('GET', '/v1/operator/ledger/trial-balance', { key: p.apiKey });
      expect(refused.status).toBe(403);
    }
  });
});
