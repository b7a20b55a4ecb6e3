/**
 * What keeps write units down, as users see it (docs/decisions/write-cost.md): a bill never
 * writes its decision item (its counters and lastUsed are on the pair's counter item; the
 * consent counters only while a term needs them), and a key's requests are counted without a
 * write each — yet a revoked key fails at once and the remaining count is exact.
 */
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { inOneRateWindow } from '../support/rate-window';
import { agreement, bill } from '../support/flows';
import { getDecision } from '../../functions/decisions/views';

let t: TestApp;
withAppAndReceiver((app) => {
  t = app;
});

describe('a bill leaves its decision item as it was', () => {
  it("lastUsed is each bill's time, shown by every decision read; the decision item is never written by a bill", async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    const before = await getDecision(a.decisionId);
    const lastUsed = async () => ({
      one: (await t.call('GET', `/v1/customer-decisions/${a.decisionId}`, { key: a.merchant.apiKey })).body.data.lastUsed,
      merchantList: (await t.call('GET', '/v1/merchant/customer-decisions', { key: a.merchant.apiKey })).body.data[0].lastUsed,
      bankList: (await t.call('GET', '/v1/bank/customer-decisions', { key: a.bank.apiKey, query: { customerId: a.customerId } })).body
        .data[0].lastUsed,
    });
    expect(await lastUsed()).toEqual({ one: null, merchantList: null, bankList: null });
    for (let i = 0; i < 3; i++) {
      const r = await bill(t, a.merchant, [a.agreementPhrase], 10);
      expect(r.status).toBe(201);
      const created = (
        await t.call('GET', '/v1/transaction-details', { key: a.merchant.apiKey, query: { reference: r.body[0].reference } })
      ).body.data.createdAt;
      expect(await lastUsed()).toEqual({ one: created, merchantList: created, bankList: created });
    }
    // No consent term: nothing counted on the decision; its item is as the intent answer left it.
    expect(await getDecision(a.decisionId)).toEqual(before);
  });

  it('with maxPayments set, every bill counts (and the limit holds)', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    expect(
      (await t.call('PUT', `/v1/bank/customer-decisions/${a.decisionId}`, { key: a.bank.apiKey, body: { maxPayments: 2 } })).status,
    ).toBe(200);
    for (let i = 0; i < 2; i++) expect((await bill(t, a.merchant, [a.agreementPhrase], 10)).status).toBe(201);
    expect((await getDecision(a.decisionId))!.paymentsUsed).toBe(2);
    expect((await bill(t, a.merchant, [a.agreementPhrase], 10)).body[0]).toMatchObject({
      statusCode: 403,
      message: 'Customer approval has no payments left',
    });
  });
});

describe('auth reads the key on every request, counts without a write per request', () => {
  it('remaining drops by one per request; a key revoked between two requests of the same second is 401 at once', async () => {
    const m = await t.participant('merchant');
    const k = await t.call('POST', `/v1/operator/participants/${m.id}/keys`, { key: t.operatorKey });
    expect(k.status).toBe(201);
    const { keyId, apiKey } = k.body.data;
    const answers = await inOneRateWindow(async () => {
      const burst = [];
      for (let i = 0; i < 5; i++) burst.push(await t.call('GET', '/v1/balance/details', { key: apiKey }));
      return burst;
    });
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const remaining = answers.map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    expect(remaining.slice(1).map((x, i) => remaining[i]! - x)).toEqual([1, 1, 1, 1]);
    expect((await t.call('DELETE', `/v1/operator/keys/${keyId}`, { key: t.operatorKey })).status).toBe(200);
    const after = await t.call('GET', '/v1/balance/details', { key: apiKey });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ statusCode: 401, success: false, message: 'Invalid API key' });
  });
});
