/**
 * Text hygiene (DESIGN 8.1): every free-text field refuses C0 (U+0000-U+001F, U+007F), C1
 * (U+0080-U+009F) and the bidi controls U+202A-U+202E, U+2066-U+2069 with the endpoint's own
 * validation message and an `errors[].path` naming the field; nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getItem } from '../../functions/platform/table';
import { participantKey } from '../../functions/identity/participant-store';
import { startTestApp, type TestApp } from '../support/app';
import { counters } from '../support/billing-table';
import { agreement, merchantWithTrust, payee } from '../support/flows';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

/** One of each refused family: C0, DEL, C1, bidi embedding/override, bidi isolate. */
const UNSAFE = ['\u0000', '\u0007', '\u007f', '\u0085', '\u009b', '\u202e', '\u202a', '\u2066', '\u2069'];
let seq = 0;
const tag = () => `${Date.now().toString(36)}${++seq}`;

function expectRefused(r: { status: number; body: any }, message: string, path: string) {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ statusCode: 400, success: false, message });
  expect((r.body.errors as { path: string }[]).map((e) => e.path)).toContain(path);
}

describe('text hygiene (DESIGN 8.1)', () => {
  it('operator participants: a name with a control or bidi character is 400 Invalid request parameters (path name); nothing written', async () => {
    for (const ch of UNSAFE) {
      const email = `p-${tag()}@example.com`;
      const body = { type: 'merchant', name: `Shop${ch}Evil`, email };
      expectRefused(await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body }), 'Invalid request parameters', 'name');
      // Nothing written: the same email is still free.
      const ok = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: { ...body, name: 'Shop' } });
      expect(ok.status).toBe(201);
    }
    const r = await t.call('POST', '/v1/operator/participants', {
      key: t.operatorKey,
      body: { type: 'bank', name: 'Bank', email: `b-${tag()}@example.com`, bankAccount: { accountName: 'A\u202eB' } },
    });
    expectRefused(r, 'Invalid request parameters', 'bankAccount.accountName');
  });

  it('provider merchants create and update: name, description, address refused with Invalid merchant data; nothing written', async () => {
    const { provider, merchant } = await merchantWithTrust(t, { trusted: true, trustLevel: 'basic' });
    const before = await getItem(participantKey(merchant.id));
    for (const ch of UNSAFE) {
      const email = `m-${tag()}@example.com`;
      const created = await t.call('POST', '/v1/provider/merchants', {
        key: provider!.apiKey,
        body: { merchants: [{ name: `Paypal${ch}`, email }] },
      });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid merchant data' });
      expect(JSON.stringify(created.body.errors)).toContain('name');
      const ok = await t.call('POST', '/v1/provider/merchants', {
        key: provider!.apiKey,
        body: { merchants: [{ name: 'Paypal', email }] },
      });
      expect(ok.status).toBe(201);

      const patched = await t.call('PATCH', '/v1/provider/merchant', {
        key: provider!.apiKey,
        body: { entityId: merchant.id, name: `Bank${ch}Alert` },
      });
      expectRefused(patched, 'Invalid merchant data', 'name');
      const desc = await t.call('PATCH', '/v1/provider/merchant', {
        key: provider!.apiKey,
        body: { entityId: merchant.id, description: `ok${ch}` },
      });
      expectRefused(desc, 'Invalid merchant data', 'description');
    }
    expect(await getItem(participantKey(merchant.id))).toEqual(before);
  });

  it('bank customers batch: a record with a control or bidi character is invalidData (per record), the others are created', async () => {
    const bank = await t.participant('bank');
    const rec = (over: Record<string, unknown> = {}) => {
      const x = tag();
      return {
        clientRef: `CR-${x}`,
        firstname: 'Ada',
        lastname: 'Obi',
        email: `ada.${x}@example.com`,
        country: 'NG',
        accountNumber: '0123456789',
        reference: `REF-${x}`,
        ...over,
      };
    };
    const records = [rec({ firstname: 'A\u202eda' }), rec({ clientRef: `CR\u0085${tag()}` }), rec({ lastname: 'O\u2066bi' }), rec()];
    const r = await t.call('POST', '/v1/bank/customers', { key: bank.apiKey, body: { customers: records } });
    expect(r.status).toBe(201);
    expect(r.body.data.summary).toEqual({ total: 4, successful: 1, failed: 3, duplicates: 0, invalidData: 3 });
    const g = await t.call('GET', `/v1/bank/customers/batches/${r.body.data.batchId}`, { key: bank.apiKey });
    const reasons = (g.body.data.failures as { index: number; reason: string }[]).map((f) => [f.index, f.reason]);
    expect(reasons).toEqual([
      [0, 'Invalid firstname: must not contain control characters'],
      [1, 'Invalid clientRef: must not contain control characters'],
      [2, 'Invalid lastname: must not contain control characters'],
    ]);
  });

  it('billing: intent, bill, pay and recurring descriptions; nothing reserved', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', limits: { daily: 1000 } });
    for (const ch of UNSAFE) {
      const bill = await t.call('POST', '/v1/customer/bill', {
        key: a.merchant.apiKey,
        body: { agreementPhrases: [a.agreementPhrase], amount: 10, currency: 'NGN', description: `Rent${ch}` },
      });
      expectRefused(bill, 'Invalid request parameters', 'description');
    }
    expect((await counters(a.decisionId)).day).toBe(0);

    const p = await payee(t);
    const pay = await t.call('POST', '/v1/customer/pay', {
      key: p.merchant.apiKey,
      body: { lookupPhrases: [p.lookupPhrase], amount: 10, currency: 'NGN', description: 'Pay\u202e' },
    });
    expectRefused(pay, 'Invalid request parameters', 'description');
    const intent = await t.call('POST', '/v1/billing/intent', {
      key: p.merchant.apiKey,
      body: { lookupPhrases: [p.lookupPhrase], currency: 'NGN', description: 'Join\u0000' },
    });
    expectRefused(intent, 'Invalid request parameters', 'description');
  });

  it('refunds and recurring pause: reason refused', async () => {
    const m = await t.participant('merchant');
    const refund = await t.call('POST', '/v1/refunds/initiate', {
      key: m.apiKey,
      body: { reference: 'REF-none', amount: 1, reason: 'oops\u2067' },
    });
    expectRefused(refund, 'Invalid request parameters', 'reason');
    const pause = await t.call('POST', '/v1/recurring/rec_none/pause', { key: m.apiKey, body: { reason: 'x\u0085' } });
    expectRefused(pause, 'Invalid request parameters', 'reason');
  });

  it('a key or webhook secret pasted into text is refused (no secret in clear at rest): name, description, customer record, schedule metadata', async () => {
    const m = await t.participant('merchant');
    const key = m.apiKey;
    const secret = `whsec_${'A1b2C3d4'.repeat(4)}`;
    const named = await t.call('POST', '/v1/operator/participants', {
      key: t.operatorKey,
      body: { type: 'merchant', name: `Shop ${key}`, email: `s-${tag()}@example.com` },
    });
    expectRefused(named, 'Invalid request parameters', 'name');
    expect(named.body.errors).toContainEqual({ path: 'name', message: 'must not contain an API key or webhook secret' });

    const a = await agreement(t, { decision: 'approve_recurring', limits: { daily: 1000 } });
    const bill = await t.call('POST', '/v1/customer/bill', {
      key: a.merchant.apiKey,
      body: { agreementPhrases: [a.agreementPhrase], amount: 10, currency: 'NGN', description: `see ${secret}` },
    });
    expectRefused(bill, 'Invalid request parameters', 'description');
    expect((await counters(a.decisionId)).day).toBe(0);

    const bank = await t.participant('bank');
    const x = tag();
    const r = await t.call('POST', '/v1/bank/customers', {
      key: bank.apiKey,
      body: {
        customers: [
          {
            clientRef: `CR-${x}`,
            firstname: 'Ada',
            lastname: secret,
            email: `ada.${x}@example.com`,
            country: 'NG',
            accountNumber: '0123456789',
            reference: `REF-${x}`,
          },
        ],
      },
    });
    expect(r.body.data.summary).toMatchObject({ total: 1, successful: 0, invalidData: 1 });

    const rec = await t.call('POST', '/v1/billing/recurring/create', {
      key: a.merchant.apiKey,
      body: {
        customerId: a.customerId,
        agreementPhrase: a.agreementPhrase,
        amount: 5,
        currency: 'NGN',
        frequency: 'monthly',
        startDate: new Date(Date.now() + 86_400_000).toISOString(),
        metadata: { note: `key ${key}` },
      },
    });
    expectRefused(rec, 'Invalid request parameters', 'metadata');

    // A short or prose mention is fine: only credential-shaped text is refused.
    const ok = await t.call('POST', '/v1/operator/participants', {
      key: t.operatorKey,
      body: { type: 'merchant', name: 'sk_live_ shop', email: `s-${tag()}@example.com` },
    });
    expect(ok.status).toBe(201);
  });
});
