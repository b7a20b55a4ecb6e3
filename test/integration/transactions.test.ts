/**
 * Transactions: GET /v1/transaction-history (status, from/to inclusive, paging,
 * total, newest first) and GET /v1/transaction-details, with visibility per merchant,
 * provider (with and without X-Entity-Id) and bank. Real local stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillItem } from '../../functions/bills/types';
import { initiateRefund } from '../../functions/refunds/store';
import { completeRefund } from '../../functions/refunds/complete';
import { startTestApp, type TestApp } from '../support/app';
import { agreement, bankResponse, bill } from '../support/flows';
import { expectLedgerInvariant, fixtureBill } from '../support/money-fixtures';

let t: TestApp;
type Party = { id: string; apiKey: string; name: string };
let provider: Party;
let otherProvider: Party;
let m1: Party;
let m2: Party;
let m3: Party;
let bank1: Party;
let bank2: Party;
/** m1's transactions by label, oldest first. */
const tx: Record<string, BillItem> = {};
let tx8: BillItem;
let tx9: BillItem;

const T0 = Date.parse('2030-02-01T10:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * 3600_000);

beforeAll(async () => {
  t = await startTestApp();
  provider = await t.participant('provider');
  otherProvider = await t.participant('provider');
  m1 = await t.participant('merchant', { providerId: provider.id });
  m2 = await t.participant('merchant', { providerId: provider.id });
  m3 = await t.participant('merchant');
  bank1 = await t.participant('bank');
  bank2 = await t.participant('bank');
  const p1 = { merchant: { id: m1.id, name: m1.name, providerId: provider.id }, bankId: bank1.id };
  const specs: [string, Parameters<typeof fixtureBill>[0]][] = [
    ['pending', { parties: p1, amount: 1_000, createdAt: at(0), status: 'pending' }],
    ['succeeded', { parties: p1, amount: 2_000, createdAt: at(1), capturedAt: at(1.01) }],
    ['declined', { parties: p1, amount: 3_000, createdAt: at(2), status: 'declined' }],
    ['expired', { parties: p1, amount: 4_000, createdAt: at(3), status: 'expired' }],
    ['failed', { parties: p1, amount: 5_000, createdAt: at(4), status: 'failed' }],
    ['refunded', { parties: p1, amount: 6_000, createdAt: at(5), capturedAt: at(5.01) }],
    ['partially_refunded', { parties: p1, amount: 7_000, createdAt: at(6), capturedAt: at(6.01) }],
  ];
  for (const [label, spec] of specs) tx[label] = await fixtureBill(spec);
  for (const [label, amount] of [
    ['refunded', 6_000],
    ['partially_refunded', 1_234],
  ] as const) {
    const r = await initiateRefund({ merchantId: m1.id, reference: tx[label]!.reference, amount });
    if (!r.ok) throw new Error(r.reason);
    await completeRefund(r.refund.refundId, new Date());
  }
  tx8 = await fixtureBill({
    parties: { merchant: { id: m2.id, name: m2.name, providerId: provider.id }, bankId: bank2.id },
    amount: 800,
    createdAt: at(7),
    capturedAt: at(7),
  });
  tx9 = await fixtureBill({
    parties: { merchant: { id: m3.id, name: m3.name }, bankId: bank1.id },
    amount: 900,
    createdAt: at(8),
    capturedAt: at(8),
  });
});
afterAll(async () => t?.stop());

const history = (key: string, query: Record<string, string | number> = {}, headers?: Record<string, string>) =>
  t.call('GET', '/v1/transaction-history', { key, query, headers });
const details = (key: string, reference: string, headers?: Record<string, string>) =>
  t.call('GET', '/v1/transaction-details', { key, query: { reference }, headers });
const refs = (r: { body: { data: { transactions: { reference: string }[] } } }) => r.body.data.transactions.map((x) => x.reference);
const byLabel = (...labels: string[]) => labels.map((l) => tx[l]!.reference);
const NEWEST_FIRST = ['partially_refunded', 'refunded', 'failed', 'expired', 'declined', 'succeeded', 'pending'];

describe('GET /v1/transaction-history', () => {
  it("a merchant's own transactions, newest first, with total and the transaction shape", async () => {
    const r = await history(m1.apiKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true, message: 'Transactions retrieved' });
    expect(r.body.data.total).toBe(7);
    expect(refs(r)).toEqual(byLabel(...NEWEST_FIRST));
    const ok = r.body.data.transactions.find((x: { reference: string }) => x.reference === tx.succeeded!.reference);
    const b = tx.succeeded!;
    expect(ok).toEqual({
      reference: b.reference,
      billingRequestId: b.billingRequestId,
      type: 'agreement',
      status: 'succeeded',
      amount: 20,
      refundedAmount: 0,
      currency: 'NGN',
      description: 'Fixture order',
      customerId: b.customerId,
      // The fixture writes the billing straight to the table, with no customer record: no name or e-mail to show.
      customer: null,
      entityId: m1.id,
      merchantName: m1.name,
      bankTransactionId: b.bankTransactionId,
      scheduleId: null,
      settlementId: null,
      disputedAmount: 0,
      disputeStatus: null,
      createdAt: at(1).toISOString(),
      updatedAt: b.updatedAt,
    });
    const statuses = Object.fromEntries(
      r.body.data.transactions.map((x: { reference: string; status: string; refundedAmount: number }) => [
        x.reference,
        [x.status, x.refundedAmount],
      ]),
    );
    expect(statuses[tx.refunded!.reference]).toEqual(['refunded', 60]);
    expect(statuses[tx.partially_refunded!.reference]).toEqual(['partially_refunded', 12.34]);
    expect(statuses[tx.pending!.reference]).toEqual(['pending', 0]);
  });

  it('status filter: each status, including the refund views', async () => {
    for (const s of NEWEST_FIRST) {
      const r = await history(m1.apiKey, { status: s });
      expect(r.status).toBe(200);
      expect(refs(r), s).toEqual(byLabel(s));
      expect(r.body.data.total).toBe(1);
    }
  });

  it('from/to are inclusive ISO 8601 date-times on createdAt (any offset)', async () => {
    const r = await history(m1.apiKey, { from: at(2).toISOString(), to: at(4).toISOString() });
    expect(refs(r)).toEqual(byLabel('failed', 'expired', 'declined'));
    expect(r.body.data.total).toBe(3);
    // Same instants written with the Lagos offset and without milliseconds.
    const lagos = await history(m1.apiKey, { from: '2030-02-01T13:00:00+01:00', to: '2030-02-01T15:00:00+01:00' });
    expect(refs(lagos)).toEqual(byLabel('failed', 'expired', 'declined'));
    // One millisecond inside or outside the bounds.
    const tight = await history(m1.apiKey, {
      from: new Date(at(2).getTime() + 1).toISOString(),
      to: new Date(at(4).getTime() - 1).toISOString(),
    });
    expect(refs(tight)).toEqual(byLabel('expired'));
    expect(refs(await history(m1.apiKey, { from: at(5).toISOString() }))).toEqual(byLabel('partially_refunded', 'refunded'));
    expect(refs(await history(m1.apiKey, { to: at(1).toISOString() }))).toEqual(byLabel('succeeded', 'pending'));
    const both = await history(m1.apiKey, { from: at(0).toISOString(), to: at(6).toISOString(), status: 'declined' });
    expect(refs(both)).toEqual(byLabel('declined'));
    const empty = await history(m1.apiKey, { from: '2031-01-01T00:00:00Z' });
    expect(empty.body.data).toEqual({ transactions: [], total: 0, hasMore: false });
  });

  it('paging with limit and skip; total counts every match', async () => {
    const p1 = await history(m1.apiKey, { limit: 3 });
    expect(refs(p1)).toEqual(byLabel(...NEWEST_FIRST.slice(0, 3)));
    expect(p1.body.data.total).toBe(7);
    const p2 = await history(m1.apiKey, { limit: 3, skip: 3 });
    expect(refs(p2)).toEqual(byLabel(...NEWEST_FIRST.slice(3, 6)));
    const p3 = await history(m1.apiKey, { limit: 3, skip: 6 });
    expect(refs(p3)).toEqual(byLabel('pending'));
    const past = await history(m1.apiKey, { skip: 50 });
    expect(past.body.data).toEqual({ transactions: [], total: 7, hasMore: false });
    const filtered = await history(m1.apiKey, { limit: 1, skip: 1, to: at(4).toISOString() });
    expect(refs(filtered)).toEqual(byLabel('expired'));
    expect(filtered.body.data.total).toBe(5);
  });

  it('bad queries: 400 Invalid query parameters', async () => {
    for (const q of [
      { from: 'yesterday' },
      { from: '2030-02-01' },
      { to: '2030-02-01T10:00:00' },
      { from: at(3).toISOString(), to: at(2).toISOString() },
      { status: 'refund' },
      { limit: 0 },
      { limit: 101 },
      { limit: 'ten' },
      { skip: -1 },
    ] as Record<string, string | number>[]) {
      const r = await history(m1.apiKey, q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid query parameters' });
    }
  });

  it("visibility: merchants their own, providers their merchants' (or one with X-Entity-Id), banks their customers'", async () => {
    expect(refs(await history(m2.apiKey))).toEqual([tx8.reference]);
    expect(refs(await history(m3.apiKey))).toEqual([tx9.reference]);
    const all = await history(provider.apiKey);
    expect(all.status).toBe(200);
    expect(refs(all)).toEqual([tx8.reference, ...byLabel(...NEWEST_FIRST)]);
    expect(all.body.data.total).toBe(8);
    expect(refs(await history(provider.apiKey, {}, { 'x-entity-id': m2.id }))).toEqual([tx8.reference]);
    expect((await history(otherProvider.apiKey)).body.data).toEqual({ transactions: [], total: 0, hasMore: false });
    const foreign = await history(otherProvider.apiKey, {}, { 'x-entity-id': m1.id });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Merchant not found');
    expect(refs(await history(bank1.apiKey))).toEqual([tx9.reference, ...byLabel(...NEWEST_FIRST)]);
    expect(refs(await history(bank2.apiKey))).toEqual([tx8.reference]);
    expect(refs(await history(bank1.apiKey, { status: 'refunded' }))).toEqual(byLabel('refunded'));
  });
});

describe('GET /v1/transaction-details', () => {
  it('one transaction by reference for its merchant, provider and bank', async () => {
    const b = tx.partially_refunded!;
    for (const [key, headers] of [
      [m1.apiKey, undefined],
      [provider.apiKey, undefined],
      [provider.apiKey, { 'x-entity-id': m1.id }],
      [bank1.apiKey, undefined],
    ] as const) {
      const r = await details(key, b.reference, headers);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ statusCode: 200, success: true, message: 'Transaction retrieved' });
      expect(r.body.data).toMatchObject({
        reference: b.reference,
        billingRequestId: b.billingRequestId,
        status: 'partially_refunded',
        amount: 70,
        refundedAmount: 12.34,
        entityId: m1.id,
      });
      // Each caller's own events of it: the fixture's billing is written straight to the table and
      // answered through the outbox; its refund is initiated and completed through it.
      expect(r.body.data.events.map((e: { type: string }) => e.type)).toEqual(
        key === bank1.apiKey ? ['refund.requested'] : ['billing.response', 'refund.updated', 'refund.updated'],
      );
      expect(Object.keys(r.body.data).sort()).toEqual(
        [
          'refunds',
          'events',
          'reference',
          'billingRequestId',
          'type',
          'status',
          'amount',
          'refundedAmount',
          'currency',
          'description',
          'customerId',
          'customer',
          'entityId',
          'merchantName',
          'bankTransactionId',
          'scheduleId',
          'settlementId',
          'disputedAmount',
          'disputeStatus',
          'createdAt',
          'updatedAt',
        ].sort(),
      );
    }
  });

  it('unknown, or not visible to the caller: 404 Transaction not found; no reference: 400', async () => {
    const b = tx.succeeded!;
    for (const [key, reference, headers] of [
      [m1.apiKey, 'txn_unknown', undefined],
      [m2.apiKey, b.reference, undefined],
      [m3.apiKey, b.reference, undefined],
      [provider.apiKey, b.reference, { 'x-entity-id': m2.id }],
      [otherProvider.apiKey, b.reference, undefined],
      [bank2.apiKey, b.reference, undefined],
      [provider.apiKey, tx9.reference, undefined],
    ] as const) {
      const r = await details(key, reference, headers);
      expect(r.status, `${reference}`).toBe(404);
      expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Transaction not found' });
    }
    const missing = await t.call('GET', '/v1/transaction-details', { key: m1.apiKey });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Invalid query parameters');
  });
});

describe('end to end through the API', () => {
  it('a bill shows pending, then succeeded with the bank transaction id after approval; the bank sees it too', async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 45.5, { description: 'Lunch' });
    const el = r.body[0];
    const pending = await history(a.merchant.apiKey);
    expect(pending.body.data.total).toBe(1);
    expect(pending.body.data.transactions[0]).toMatchObject({
      reference: el.reference,
      status: 'pending',
      amount: 45.5,
      description: 'Lunch',
      bankTransactionId: null,
      customerId: a.customerId,
    });
    expect((await bankResponse(t, a.bank, el.billingRequestId, 'approve_once', 'BANK-77')).status).toBe(200);
    const d = await details(a.merchant.apiKey, el.reference);
    expect(d.body.data).toMatchObject({ status: 'succeeded', bankTransactionId: 'BANK-77', billingRequestId: el.billingRequestId });
    expect(refs(await history(a.bank.apiKey, { status: 'succeeded' }))).toEqual([el.reference]);
    await expectLedgerInvariant();
  });
});
