/**
 * Finding things (DESIGN 9.3): GET /v1/search, GET /v1/reports/volume (day counters written in
 * the money transactions, agreeing with the transaction history after concurrent bills and
 * refunds), GET /v1/webhooks/deliveries/{id} (attempts with requests and answers, signatures
 * redacted, bodies cut at 4 KB, 30-day TTL) and the endpoints' `health`. Isolation and bad
 * input for each. Real local stack.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { lagosDate, addDays } from '../../functions/domain/lagos-time';
import { deliveryKey, type DeliveryItem } from '../../functions/webhooks/delivery-store';
import { getItem, putItem, transact } from '../../functions/platform/table';
import { bankDayPk, dayCounterAdd } from '../../functions/ledger/day-counters';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { agreement, bankResponse, bill, merchantWithTrust, onboardCustomer, webhook, type Agreement, type Party } from '../support/flows';
import { expectLedgerInvariant, fixtureBill, until } from '../support/money-fixtures';
import { csvRecords } from '../support/csv';
import type { Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

const INVALID_QUERY = 'Invalid query parameters';
const today = () => lagosDate(new Date());

let a: Agreement;
let provider: Party;
let otherMerchant: Party;
let otherBank: Party;
let otherProvider: Party;

beforeAll(async () => {
  const made = await merchantWithTrust(t, { trusted: true });
  provider = made.provider!;
  a = await agreement(t, { decision: 'approve_recurring', merchant: made.merchant, provider });
  otherMerchant = await t.participant('merchant');
  otherBank = await t.participant('bank');
  otherProvider = await t.participant('provider');
});

const volume = (key: string, query: Record<string, string> = {}, headers?: Record<string, string>) =>
  t.call('GET', '/v1/reports/volume', { key, query, headers });
/** One day's volume as the merchant, its provider (alone and acting for it) and the customers' bank each see it. */
async function expectVolumeSeenBy(who: { merchant: Party; provider: Party; bank: Party }, day: string, days: unknown[]): Promise<void> {
  for (const [key, headers] of [
    [who.merchant.apiKey, undefined],
    [who.provider.apiKey, undefined],
    [who.provider.apiKey, { 'X-Entity-Id': who.merchant.id }],
    [who.bank.apiKey, undefined],
  ] as const) {
    const r = await volume(key, { from: day, to: day }, headers);
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('Volume retrieved');
    expect(r.body.data.days).toEqual(days);
  }
}
const search = (key: string, q: string | undefined, headers?: Record<string, string>) =>
  t.call('GET', '/v1/search', { key, query: q === undefined ? {} : { q }, headers });
const history = async (key: string) => {
  const r = await t.call('GET', '/v1/transaction-history', { key, query: { limit: 100 } });
  expect(r.status).toBe(200);
  return r.body.data.transactions as {
    reference: string;
    status: string;
    amount: number;
    refundedAmount: number;
    disputedAmount: number;
  }[];
};

/** Sums of the succeeded debits in a history (refunded ones included): what the volume must say. */
function fromHistory(txs: { status: string; amount: number; refundedAmount: number; disputedAmount: number }[]) {
  const ok = txs.filter((x) => ['succeeded', 'refunded', 'partially_refunded'].includes(x.status));
  const cents = (v: number) => Math.round(v * 100);
  return {
    count: ok.length,
    amount: ok.reduce((s, x) => s + cents(x.amount), 0) / 100,
    refunded: ok.reduce((s, x) => s + cents(x.refundedAmount), 0) / 100,
    disputed: ok.reduce((s, x) => s + cents(x.disputedAmount ?? 0), 0) / 100,
  };
}

describe('GET /v1/reports/volume', () => {
  const refs: string[] = [];

  beforeAll(async () => {
    // 12 concurrent bills, answered concurrently: 10 approved, 2 denied.
    const amounts = [100, 250.5, 75, 1000, 20, 33.33, 410, 90, 12.5, 600, 45, 5];
    const billed = await Promise.all(
      amounts.map((amt, i) => bill(t, a.merchant, [a.agreementPhrase], amt, { description: `Volume ${i}` })),
    );
    const els = billed.map((r) => {
      expect(r.status).toBe(201);
      return r.body[0] as { billingRequestId: string; reference: string };
    });
    const answers = await Promise.all(
      els.map((el, i) => bankResponse(t, a.bank, el.billingRequestId, i < 10 ? 'approve_recurring' : 'deny', i < 10 ? `BTX-V${i}` : null)),
    );
    for (const r of answers) expect(r.status).toBe(200);
    refs.push(...els.slice(0, 10).map((el) => el.reference));
    // Concurrent refunds: three on different transactions, three partial ones on the same one.
    const asked = await Promise.all([
      ...[0, 1, 2].map((i) => t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: refs[i] } })),
      ...[10, 20, 30].map((amount) =>
        t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: refs[3], amount } }),
      ),
    ]);
    for (const r of asked) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const done = await Promise.all(
      asked.map((r) => t.call('POST', `/v1/sandbox/refunds/${r.body.data.refundId}/complete`, { key: a.merchant.apiKey })),
    );
    for (const r of done) expect(r.status).toBe(200);
    // Concurrent disputes by the customer's bank: two whole, one partial.
    const disputed = await Promise.all([
      t.call('POST', '/v1/bank/disputes', { key: a.bank.apiKey, body: { reference: refs[5], reason: 'unauthorized' } }),
      t.call('POST', '/v1/bank/disputes', { key: a.bank.apiKey, body: { reference: refs[6], reason: 'not_received' } }),
      t.call('POST', '/v1/bank/disputes', { key: a.bank.apiKey, body: { reference: refs[7], reason: 'amount_incorrect', amount: 10 } }),
    ]);
    for (const r of disputed) expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('agrees with the transaction history after concurrent bills, refunds and disputes (merchant, provider, bank)', async () => {
    const expected = fromHistory(await history(a.merchant.apiKey));
    expect(expected).toEqual({ count: 10, amount: 2591.33, refunded: 100 + 250.5 + 75 + 60, disputed: 33.33 + 410 + 10 });
    const day = today();
    await expectVolumeSeenBy({ merchant: a.merchant, provider, bank: a.bank }, day, [{ date: day, ...expected }]);
    await expectLedgerInvariant();
  });

  it('one entry per Lagos day, zeros included; a day counts what moved that day', async () => {
    const m = await t.participant('merchant');
    const bank = await t.participant('bank');
    const d2 = addDays(today(), -2);
    // A debit captured two days ago (Lagos noon).
    await fixtureBill({
      parties: { merchant: { id: m.id, name: m.name }, bankId: bank.id },
      amount: 12_345,
      capturedAt: new Date(`${d2}T11:00:00Z`),
    });
    const r = await volume(m.apiKey, { from: addDays(today(), -3), to: today() });
    expect(r.status).toBe(200);
    expect(r.body.data.days).toEqual([
      { date: addDays(today(), -3), count: 0, amount: 0, refunded: 0, disputed: 0 },
      { date: d2, count: 1, amount: 123.45, refunded: 0, disputed: 0 },
      { date: addDays(today(), -1), count: 0, amount: 0, refunded: 0, disputed: 0 },
      { date: today(), count: 0, amount: 0, refunded: 0, disputed: 0 },
    ]);
    // Without dates: the 30 days up to today.
    const dflt = await volume(m.apiKey);
    expect(dflt.body.data.days).toHaveLength(30);
    expect(dflt.body.data.days.at(-1).date).toBe(today());
  });

  it('counters counted before issue 50 (lists on gsi3 / gsi4) are read once with the new ones; the next count of one moves it to the keys-only lists', async () => {
    const made = await merchantWithTrust(t, { trusted: true });
    const m = made.merchant;
    const p = made.provider!;
    const bank = await t.participant('bank');
    const d = addDays(today(), -5);
    // Two counters stored the way they were.
    const storedBefore = (partition: number, shard: number, captured: number) => ({
      pk: bankDayPk(bank.id, d, partition),
      sk: `M#${m.id}#${shard}`,
      bankId: bank.id,
      merchantId: m.id,
      merchantName: m.name,
      providerId: p.id,
      date: d,
      captured,
      capturedCount: 1,
      refunded: 0,
      refundCount: 0,
      disputed: 0,
      disputeCount: 0,
      gsi3pk: `MVOL#${m.id}`,
      gsi3sk: `${d}#${bank.id}#${shard}`,
      gsi4pk: `PVOL#${p.id}#${partition}`,
      gsi4sk: `${d}#${m.id}#${bank.id}#${shard}`,
    });
    const touched = storedBefore(2, 2, 5_000); // shard 2: a small day's captures count on shard 0, never on it
    await putItem(touched);
    await putItem(storedBefore(7, 3, 2_000));
    const expectVolume = (count: number, amount: number) =>
      expectVolumeSeenBy({ merchant: m, provider: p, bank }, d, [{ date: d, count, amount, refunded: 0, disputed: 0 }]);
    await expectVolume(2, 70);
    // A capture of that day counts on its own item; the next count of the stored one (the same partition and shard) moves it.
    const parties = { merchant: { id: m.id, name: m.name, providerId: p.id }, bankId: bank.id };
    await fixtureBill({ parties, amount: 10_000, capturedAt: new Date(`${d}T09:00:00Z`) });
    await expectVolume(3, 170);
    await transact([
      dayCounterAdd(
        { bankId: bank.id, merchantId: m.id, merchantName: m.name, providerId: p.id },
        { date: d, shard: 2, captured: 1_000, partition: 2 },
      ),
    ]);
    await expectVolume(4, 180);
    const moved = await getItem<Record<string, unknown>>({ pk: touched.pk, sk: touched.sk });
    expect(moved).toMatchObject({
      captured: 6_000,
      capturedCount: 2,
      gsi5pk: `MVOL#${m.id}`,
      gsi7pk: touched.gsi4pk,
      lsk: `${d}#${m.id}#${bank.id}#2`,
    });
    expect(moved).not.toHaveProperty('gsi3pk');
    expect(moved).not.toHaveProperty('gsi4pk');
  });

  it('isolated: another merchant, bank or provider sees zeros; a provider cannot act for a merchant not its own', async () => {
    const day = today();
    const zero = [{ date: day, count: 0, amount: 0, refunded: 0, disputed: 0 }];
    for (const key of [otherMerchant.apiKey, otherBank.apiKey, otherProvider.apiKey]) {
      const r = await volume(key, { from: day, to: day });
      expect(r.status).toBe(200);
      expect(r.body.data.days).toEqual(zero);
    }
    const foreign = await volume(otherProvider.apiKey, { from: day, to: day }, { 'X-Entity-Id': a.merchant.id });
    expect(foreign.status).toBe(404);
  });

  it('bad input: 400 Invalid query parameters (bad dates, from after to, more than 92 days, unknown parameters)', async () => {
    const day = today();
    const queries: Record<string, string>[] = [
      { from: '2026-02-30', to: day },
      { from: 'yesterday' },
      { from: day, to: addDays(day, -1) },
      { from: addDays(day, -92), to: day },
      { from: day, to: day, merchantId: a.merchant.id },
    ];
    for (const query of queries) {
      const r = await volume(a.merchant.apiKey, query);
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.message).toBe(INVALID_QUERY);
    }
    const ok = await volume(a.merchant.apiKey, { from: addDays(day, -91), to: day });
    expect(ok.status).toBe(200);
    expect(ok.body.data.days).toHaveLength(92);
  });
});

describe('POST /v1/exports with the filters on screen', () => {
  it('a transactions export takes a status filter and names its file after the filters', async () => {
    const r = await t.call('POST', '/v1/exports', { key: a.merchant.apiKey, body: { kind: 'transactions', status: 'refunded' } });
    expect(r.status).toBe(202);
    const done = await until(async () => {
      await t.app.tick(new Date());
      await t.app.settle();
      const e = await t.call('GET', `/v1/exports/${r.body.data.exportId}`, { key: a.merchant.apiKey });
      return e.body.data?.status !== 'pending' ? e : undefined;
    }, 30_000);
    expect(done.body.data.status).toBe('ready');
    const url = new URL(done.body.data.url);
    expect(url.pathname).toMatch(new RegExp(`/idpay-transactions-refunded-start-to-${new Date().toISOString().slice(0, 10)}\\.csv$`));
    const rows = csvRecords(await (await fetch(url)).text());
    const refunded = (await history(a.merchant.apiKey)).filter((x) => x.status === 'refunded');
    expect(refunded.length).toBeGreaterThan(0);
    expect(rows.map((x) => x.reference).sort()).toEqual(refunded.map((x) => x.reference).sort());
    expect(new Set(rows.map((x) => x.status))).toEqual(new Set(['refunded']));
    // A settlement export takes no status.
    const bad = await t.call('POST', '/v1/exports', {
      key: a.merchant.apiKey,
      body: { kind: 'settlement', settlementId: 'stl_x', status: 'refunded' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toContainEqual({ path: 'status', message: 'applies to transactions exports only' });
  });
});

describe('GET /v1/search', () => {
  let reference: string;
  let billingRequestId: string;
  let refundId: string;

  beforeAll(async () => {
    const b = await bill(t, a.merchant, [a.agreementPhrase], 42, { description: 'Searchable order' });
    expect(b.status).toBe(201);
    ({ reference, billingRequestId } = b.body[0]);
    expect((await bankResponse(t, a.bank, billingRequestId, 'approve_recurring', 'BTX-S1')).status).toBe(200);
    const r = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference, amount: 2 } });
    expect(r.status).toBe(201);
    refundId = r.body.data.refundId;
  });

  const found = (r: { body: { data: { results: { kind: string; id: string }[] } } }) => r.body.data.results.map((x) => `${x.kind}:${x.id}`);

  it('finds a transaction by its reference and its billing request id, with a title, for merchant, provider and bank', async () => {
    for (const key of [a.merchant.apiKey, provider.apiKey, a.bank.apiKey]) {
      const r = await search(key, reference);
      expect(r.status).toBe(200);
      expect(r.body.message).toBe('Search results');
      expect(r.body.data.results).toEqual([
        { kind: 'transaction', id: reference, title: expect.stringContaining('NGN 42.00'), createdAt: expect.any(String) },
      ]);
      expect(r.body.data.results[0].title).toContain('Searchable order');
      expect(found(await search(key, billingRequestId))).toEqual([`billing_request:${billingRequestId}`]);
    }
    expect(found(await search(a.merchant.apiKey, refundId))).toEqual([`refund:${refundId}`]);
  });

  it('finds a customer by e-mail (any case): the bank its own, the merchant and its provider through their decision', async () => {
    const upper = a.email.toUpperCase();
    expect(found(await search(a.bank.apiKey, upper))).toEqual([`customer:${a.customerId}`]);
    for (const key of [a.merchant.apiKey, provider.apiKey]) {
      const r = await search(key, upper);
      expect(found(r).sort()).toEqual([`customer:${a.customerId}`, `decision:${a.decisionId}`].sort());
      expect(r.body.data.results.find((x: { kind: string }) => x.kind === 'customer').title).toContain(a.email);
    }
    // The bank finds it by clientRef too; the merchant does not (clientRef is the bank's).
    expect(found(await search(a.bank.apiKey, a.clientRef))).toEqual([`customer:${a.customerId}`]);
    expect(found(await search(a.merchant.apiKey, a.clientRef))).toEqual([]);
    expect(found(await search(a.merchant.apiKey, a.customerId)).sort()).toEqual(
      [`customer:${a.customerId}`, `decision:${a.decisionId}`].sort(),
    );
    expect(found(await search(a.bank.apiKey, a.decisionId))).toEqual([`decision:${a.decisionId}`]);
  });

  it('finds events and deliveries of the caller', async () => {
    const hook = await webhook(t, rx, a.merchant, { label: 'search' });
    const test = await t.call('POST', `/v1/webhooks/endpoints/${hook.endpointId}/test`, { key: a.merchant.apiKey });
    expect(test.status).toBe(202);
    await t.app.settle();
    const { eventId, deliveryId } = test.body.data;
    expect(found(await search(a.merchant.apiKey, eventId))).toEqual([`event:${eventId}`]);
    expect(found(await search(a.merchant.apiKey, deliveryId))).toEqual([`delivery:${deliveryId}`]);
    expect(found(await search(otherMerchant.apiKey, eventId))).toEqual([]);
    expect(found(await search(otherMerchant.apiKey, deliveryId))).toEqual([]);
  });

  it('isolated: another merchant, bank or provider finds nothing of it', async () => {
    for (const key of [otherMerchant.apiKey, otherBank.apiKey, otherProvider.apiKey]) {
      for (const q of [reference, billingRequestId, refundId, a.email, a.customerId, a.decisionId, a.clientRef]) {
        const r = await search(key, q);
        expect(r.status).toBe(200);
        expect(r.body.data.results, `${q}`).toEqual([]);
      }
    }
    // A customer of another bank with no decision for the merchant is not found by its e-mail.
    const stranger = await onboardCustomer(t, otherBank);
    expect(found(await search(a.merchant.apiKey, stranger.email))).toEqual([]);
    expect(found(await search(otherBank.apiKey, stranger.email))).toEqual([`customer:${stranger.customerId}`]);
  });

  it("finds by the start of an id (6+ characters), description words and an exact amount, in the caller's own last 90 days only (DESIGN 10.7)", async () => {
    for (const key of [a.merchant.apiKey, provider.apiKey, a.bank.apiKey]) {
      for (const q of [reference.slice(0, 10), billingRequestId.slice(0, 12), 'ORDER searchable', '42', '42.00']) {
        const r = await search(key, q);
        expect(r.status).toBe(200);
        expect(found(r), q).toContain(`transaction:${reference}`);
        expect(r.body.data.complete).toBe(true);
      }
    }
    // `2,500.00`-style amounts: the 1,000.00 of the volume's bills.
    expect((await search(a.merchant.apiKey, '1,000.00')).body.data.results.map((x: { title: string }) => x.title)).toEqual([
      expect.stringContaining('NGN 1000.00 · Volume 3'),
    ]);
    // Fewer than 6 characters of an id find nothing by it; nor does anyone else find these.
    expect(found(await search(a.merchant.apiKey, reference.slice(0, 5)))).toEqual([]);
    for (const key of [otherMerchant.apiKey, otherBank.apiKey, otherProvider.apiKey])
      for (const q of [reference.slice(0, 10), 'Searchable order', '42']) expect(found(await search(key, q)), q).toEqual([]);
  });

  it('nothing found: 200 with results []; bad input: 400 Invalid query parameters', async () => {
    for (const q of ['txn_doesnotexist', 'nobody@example.com', 'hello world', 'dlv_x']) {
      const r = await search(a.merchant.apiKey, q);
      expect(r.status).toBe(200);
      expect(r.body.data.results).toEqual([]);
    }
    for (const q of [undefined, '', '   ', 'x'.repeat(201)]) {
      const r = await search(a.merchant.apiKey, q);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(INVALID_QUERY);
    }
    expect((await search(a.merchant.apiKey, 'x'.repeat(200))).status).toBe(200);
  });
});

describe('GET /v1/webhooks/deliveries/{id} and endpoint health', () => {
  const health = async (key: string, endpointId: string) => {
    const r = await t.call('GET', '/v1/webhooks/endpoints', { key });
    expect(r.status).toBe(200);
    return r.body.data.endpoints.find((e: { id: string }) => e.id === endpointId).health as string;
  };
  const sendTest = async (key: string, endpointId: string) => {
    const r = await t.call('POST', `/v1/webhooks/endpoints/${endpointId}/test`, { key });
    expect(r.status).toBe(202);
    return r.body.data as { eventId: string; deliveryId: string };
  };

  it('an endpoint is unknown before any attempt, failing after 5 failed attempts (retries pending), healthy after a 2xx', async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'health' });
    expect(await health(m.apiKey, hook.endpointId)).toBe('unknown');
    rx.script(
      hook.path,
      Array.from({ length: 5 }, () => ({ status: 500, body: 'boom' })),
    );
    for (let i = 0; i < 4; i++) await sendTest(m.apiKey, hook.endpointId);
    await rx.waitFor(hook.path, (reqs) => reqs.length >= 4);
    await t.app.settle();
    expect(await health(m.apiKey, hook.endpointId)).toBe('healthy'); // 4 failures in a row: not yet
    await sendTest(m.apiKey, hook.endpointId);
    await rx.waitFor(hook.path, (reqs) => reqs.length >= 5);
    await t.app.settle();
    expect(await health(m.apiKey, hook.endpointId)).toBe('failing');
    // The deliveries are still pending (their retries wait): failing all the same.
    const list = await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey, query: { status: 'pending' } });
    expect(list.body.data.deliveries.length).toBe(5);
    await sendTest(m.apiKey, hook.endpointId); // answered 200 (script used up)
    await rx.waitFor(hook.path, (reqs) => reqs.length >= 6);
    await t.app.settle();
    expect(await health(m.apiKey, hook.endpointId)).toBe('healthy');
  });

  it('shows each attempt: the request as sent (signatures redacted) and the answer, bodies cut at 4 KB; kept 30 days', async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'detail' });
    const big = `${'é'.repeat(2_100)}tail`; // 4,204 bytes
    rx.script(hook.path, [{ status: 500, body: big, headers: { 'x-receiver': 'yes' } }]);
    const { eventId, deliveryId } = await sendTest(m.apiKey, hook.endpointId);
    const [sent] = await rx.waitFor(hook.path, (reqs) => reqs.length >= 1);
    await t.app.settle();
    const r = await t.call('GET', `/v1/webhooks/deliveries/${deliveryId}`, { key: m.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('Delivery retrieved');
    const d = r.body.data;
    expect(d).toMatchObject({
      id: deliveryId,
      eventId,
      type: 'webhook.test',
      endpointId: hook.endpointId,
      url: hook.url,
      status: 'pending',
    });
    expect(d.attempts).toHaveLength(1);
    const at = d.attempts[0];
    expect(at.error).toBeNull();
    expect(at.durationMs).toEqual(expect.any(Number));
    expect(at.request.body).toBe(sent!.body);
    expect(at.request.headers).toMatchObject({
      'Content-Type': 'application/json',
      'webhook-id': eventId,
      'webhook-timestamp': sent!.headers['webhook-timestamp'],
      'webhook-signature': '<redacted>',
      'X-Webhook-Signature': '<redacted>',
    });
    expect(JSON.stringify(d)).not.toContain(sent!.headers['webhook-signature']!);
    expect(at.response.status).toBe(500);
    expect(at.response.headers['x-receiver']).toBe('yes');
    expect(Buffer.byteLength(at.response.body)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(at.response.body)).toBeGreaterThan(4090);
    expect(big.startsWith(at.response.body)).toBe(true);
    const stored = await getItem<DeliveryItem>(deliveryKey(deliveryId));
    expect(stored!.expiresAt).toBe(Math.floor(Date.parse(stored!.createdAt) / 1000) + 30 * 86_400);
  });

  it('a delivered attempt shows the 2xx; an attempt with no answer has response null and its error', async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'ok' });
    const ok = await sendTest(m.apiKey, hook.endpointId);
    await rx.waitFor(hook.path, (reqs) => reqs.length >= 1);
    await t.app.settle();
    const r = await t.call('GET', `/v1/webhooks/deliveries/${ok.deliveryId}`, { key: m.apiKey });
    expect(r.body.data.status).toBe('delivered');
    expect(r.body.data.attempts[0]).toMatchObject({ response: { status: 200 }, error: null });

    // Nothing listens on port 9 here: the connection is refused.
    const ep = await t.call('POST', '/v1/webhooks/endpoints', { key: m.apiKey, body: { url: 'http://127.0.0.1:9/hook' } });
    expect(ep.status).toBe(201);
    const refused = await sendTest(m.apiKey, ep.body.data.id);
    await t.app.settle();
    const d = await t.call('GET', `/v1/webhooks/deliveries/${refused.deliveryId}`, { key: m.apiKey });
    expect(d.body.data.attempts[0]).toMatchObject({ response: null, error: 'connection_refused', request: { body: expect.any(String) } });
  });

  it("isolated and bad ids: 404 Delivery not found (another participant's, unknown, malformed, over-long)", async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'iso' });
    const { deliveryId } = await sendTest(m.apiKey, hook.endpointId);
    await t.app.settle();
    for (const [key, id] of [
      [otherMerchant.apiKey, deliveryId],
      [a.bank.apiKey, deliveryId],
      [m.apiKey, 'dlv_doesnotexist'],
      [m.apiKey, 'not-a-delivery'],
      [m.apiKey, `dlv_${'a'.repeat(200)}`],
    ] as const) {
      const r = await t.call('GET', `/v1/webhooks/deliveries/${id}`, { key });
      expect(r.status).toBe(404);
      expect(r.body.message).toBe('Delivery not found');
    }
  });
});
