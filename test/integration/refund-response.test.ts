/**
 * POST /v1/billing/refund-response: in live, the customer's bank confirms (or fails) the
 * refunds it received as `refund.requested`; nothing completes by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { agreement, bankResponse, bill } from '../support/flows';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STAGE: 'live' });
});
afterAll(async () => t?.stop());

async function paidTransaction(amount: number) {
  const a = await agreement(t, { decision: 'approve_once' });
  const billed = await bill(t, a.merchant, [a.agreementPhrase], amount);
  expect(billed.status).toBe(201);
  const reference = billed.body[0].reference as string;
  const details = await t.call('GET', '/v1/transaction-details', { key: a.merchant.apiKey, query: { reference } });
  const approved = await bankResponse(t, a.bank, details.body.data.billingRequestId, 'approve_once');
  expect(approved.status).toBe(200);
  return { ...a, reference };
}

describe('bank refund confirmation (live)', () => {
  it('completes a refund when the bank confirms it, and refuses a second answer', async () => {
    const a = await paidTransaction(100);
    const init = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: a.reference, amount: 40 } });
    expect(init.status).toBe(201);
    const refundId = init.body.data.refundId as string;

    const processing = await t.call('POST', '/v1/billing/refund-response', {
      key: a.bank.apiKey,
      body: { refundId, status: 'processing' },
    });
    expect(processing.status).toBe(200);
    expect(processing.body.data).toMatchObject({ refundId, status: 'processing' });

    const done = await t.call('POST', '/v1/billing/refund-response', {
      key: a.bank.apiKey,
      body: { refundId, status: 'completed', bankRefundId: 'BR-1' },
    });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ refundId, status: 'completed', amount: 40 });

    const tx = await t.call('GET', '/v1/transaction-details', { key: a.merchant.apiKey, query: { reference: a.reference } });
    expect(tx.body.data).toMatchObject({ status: 'partially_refunded', refundedAmount: 40 });

    const again = await t.call('POST', '/v1/billing/refund-response', { key: a.bank.apiKey, body: { refundId, status: 'failed' } });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Refund is already completed');
  });

  it('releases the reservation when the bank fails the refund', async () => {
    const a = await paidTransaction(50);
    const init = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: a.reference } });
    const refundId = init.body.data.refundId as string;
    const failed = await t.call('POST', '/v1/billing/refund-response', {
      key: a.bank.apiKey,
      body: { refundId, status: 'failed', reason: 'Account closed' },
    });
    expect(failed.status).toBe(200);
    expect(failed.body.data.status).toBe('failed');
    // the whole amount is refundable again
    const retry = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: a.reference } });
    expect(retry.status).toBe(201);
    expect(retry.body.data.amount).toBe(50);
  });

  it("hides another bank's refund and validates the body", async () => {
    const a = await paidTransaction(10);
    const init = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: a.reference } });
    const other = await t.participant('bank');
    const r = await t.call('POST', '/v1/billing/refund-response', {
      key: other.apiKey,
      body: { refundId: init.body.data.refundId, status: 'completed' },
    });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Refund not found');
    const bad = await t.call('POST', '/v1/billing/refund-response', {
      key: a.bank.apiKey,
      body: { refundId: init.body.data.refundId, status: 'done' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid request parameters');
    const merchant = await t.call('POST', '/v1/billing/refund-response', {
      key: a.merchant.apiKey,
      body: { refundId: 'x', status: 'completed' },
    });
    expect(merchant.status).toBe(403);
  });
});
