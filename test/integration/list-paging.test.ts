/**
 * Lists at scale and batch bank answers (DESIGN 8.9): `startingAfter` walks every
 * item exactly once in order with `hasMore` false at the end; a forged or foreign cursor is
 * 400 and shows nothing of anyone else; `skip + limit` above 10,000 is refused; and
 * `POST /v1/billing/bank-responses` answers each element as the single route would.
 * Real local stack.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BillItem } from '../../functions/bills/types';
import { randomToken } from '../../functions/domain/ids';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { getBill, ledgerProblems } from '../support/billing-table';
import { agreement, bankResponse, bill, events, receivedEvents, type Agreement } from '../support/flows';
import { fixtureBill } from '../support/money-fixtures';
import type { Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

const BEYOND = 'Use startingAfter to page beyond 10,000 items';
type Party = { id: string; apiKey: string; name: string };

/** Walks a list with `startingAfter` = the last item's id; every page's answer is returned. */
async function walk(get: (after?: string) => Promise<{ status: number; body: any }>, items: (b: any) => any[], idOf: (x: any) => string) {
  const pages: any[] = [];
  let after: string | undefined;
  for (let i = 0; i < 100; i++) {
    const r = await get(after);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    pages.push(r.body);
    const got = items(r.body);
    const more = r.body.data?.hasMore ?? r.body.hasMore;
    if (!more) return pages;
    expect(got.length).toBeGreaterThan(0);
    after = idOf(got[got.length - 1]);
  }
  throw new Error('walk did not end');
}

/** What a refused element adds (its code and type from the error table). */
const refused404 = { code: 'billing_request_not_found', type: 'not_found_error', docUrl: '/docs#error-billing_request_not_found' };
const answered409 = { code: 'billing_already_answered', type: 'conflict_error', docUrl: '/docs#error-billing_already_answered' };

describe('transaction history: startingAfter', () => {
  let m: Party;
  let other: Party;
  let bank: Party;
  const mine: BillItem[] = [];
  let theirs: BillItem;
  const T0 = Date.parse('2031-05-01T10:00:00.000Z');

  beforeAll(async () => {
    m = await t.participant('merchant');
    other = await t.participant('merchant');
    bank = await t.participant('bank');
    const parties = { merchant: { id: m.id, name: m.name }, bankId: bank.id };
    for (let i = 0; i < 23; i++) {
      const createdAt = new Date(T0 + i * 60_000);
      mine.push(
        await fixtureBill(
          i % 3 === 1
            ? { parties, amount: 100 + i, createdAt, status: 'declined' }
            : { parties, amount: 100 + i, createdAt, capturedAt: createdAt },
        ),
      );
    }
    theirs = await fixtureBill({
      parties: { merchant: { id: other.id, name: other.name }, bankId: bank.id },
      amount: 999,
      createdAt: new Date(T0 + 5 * 60_000),
      capturedAt: new Date(T0 + 5 * 60_000),
    });
  });

  const history = (key: string, query: Record<string, string | number>) => t.call('GET', '/v1/transaction-history', { key, query });
  const refsOf = (bs: BillItem[]) => bs.map((b) => b.reference);

  it('walks every transaction exactly once, newest first, hasMore false at the end; total only on skip pages', async () => {
    const newestFirst = refsOf([...mine].reverse());
    const first = await history(m.apiKey, { limit: 5 });
    expect(first.body.data).toMatchObject({ total: 23, hasMore: true });
    const pages = await walk(
      (after) => history(m.apiKey, { limit: 5, ...(after ? { startingAfter: after } : {}) }),
      (b) => b.data.transactions,
      (x) => x.billingRequestId,
    );
    expect(pages.flatMap((p) => p.data.transactions.map((x: { reference: string }) => x.reference))).toEqual(newestFirst);
    expect(pages).toHaveLength(5);
    expect(pages.at(-1).data.hasMore).toBe(false);
    for (const p of pages.slice(1)) expect(p.data).not.toHaveProperty('total');
    // A reference names the same place as its billingRequestId.
    const byRef = await history(m.apiKey, { limit: 3, startingAfter: mine[10]!.reference });
    const byId = await history(m.apiKey, { limit: 3, startingAfter: mine[10]!.billingRequestId });
    expect(byRef.body.data).toEqual(byId.body.data);
    expect(byRef.body.data.transactions.map((x: { reference: string }) => x.reference)).toEqual(refsOf([mine[9]!, mine[8]!, mine[7]!]));
    expect(byRef.body.data.hasMore).toBe(true);
  });

  it('filters stay correct across pages (status, from/to)', async () => {
    const declined = refsOf([...mine].reverse().filter((b) => b.status === 'declined'));
    const pages = await walk(
      (after) => history(m.apiKey, { limit: 2, status: 'declined', ...(after ? { startingAfter: after } : {}) }),
      (b) => b.data.transactions,
      (x) => x.reference,
    );
    expect(pages.flatMap((p) => p.data.transactions.map((x: { reference: string }) => x.reference))).toEqual(declined);
    const succeededAfter = await history(m.apiKey, { status: 'succeeded', limit: 100, startingAfter: mine[4]!.billingRequestId });
    expect(succeededAfter.body.data.transactions.map((x: { reference: string }) => x.reference)).toEqual(
      refsOf([mine[3]!, mine[2]!, mine[0]!]),
    );
    const from = new Date(T0 + 5 * 60_000).toISOString();
    const to = new Date(T0 + 12 * 60_000).toISOString();
    const ranged = await walk(
      (after) => history(m.apiKey, { limit: 3, from, to, ...(after ? { startingAfter: after } : {}) }),
      (b) => b.data.transactions,
      (x) => x.billingRequestId,
    );
    expect(ranged.flatMap((p) => p.data.transactions.map((x: { reference: string }) => x.reference))).toEqual(
      refsOf(mine.slice(5, 13).reverse()),
    );
    // A cursor newer than `to` starts at the range's beginning; one older than `from` ends it.
    const newer = await history(m.apiKey, { limit: 2, from, to, startingAfter: mine[20]!.billingRequestId });
    expect(newer.body.data.transactions.map((x: { reference: string }) => x.reference)).toEqual(refsOf([mine[12]!, mine[11]!]));
    const older = await history(m.apiKey, { limit: 2, from, to, startingAfter: mine[1]!.billingRequestId });
    expect(older.body.data).toEqual({ transactions: [], hasMore: false });
  });

  it('a foreign or forged cursor is 400 Invalid query parameters and shows nothing of anyone', async () => {
    for (const cursor of [theirs.billingRequestId, theirs.reference, `breq_${randomToken(20)}`, 'txn_nothing', 'nonsense']) {
      const r = await history(m.apiKey, { startingAfter: cursor });
      expect(r.status, cursor).toBe(400);
      expect(r.body).toMatchObject({
        statusCode: 400,
        success: false,
        message: 'Invalid query parameters',
        errors: [{ path: 'startingAfter', message: expect.any(String) }],
      });
      // Nothing of their bill (amount 999) in the answer; the request id is random hex and may hold "999".
      const { requestId: _random, ...shown } = r.body;
      expect(JSON.stringify(shown)).not.toContain('999');
    }
    // The other merchant's own cursor works for it, and shows only its own items.
    const theirsPage = await history(other.apiKey, { startingAfter: theirs.billingRequestId });
    expect(theirsPage.body.data).toEqual({ transactions: [], hasMore: false });
    // The bank sees both merchants' bills: either cursor is its own.
    const bankPage = await history(bank.apiKey, { limit: 100, startingAfter: theirs.billingRequestId });
    expect(bankPage.status).toBe(200);
    expect(bankPage.body.data.transactions.map((x: { reference: string }) => x.reference)).toEqual(refsOf(mine.slice(0, 6).reverse()));
  });

  it('skip + limit above 10,000 is 400 Use startingAfter to page beyond 10,000 items; skip with startingAfter is 400', async () => {
    const edge = await history(m.apiKey, { skip: 9_990, limit: 10 });
    expect(edge.status).toBe(200);
    expect(edge.body.data).toEqual({ transactions: [], total: 23, hasMore: false });
    for (const q of [
      { skip: 9_991, limit: 10 },
      { skip: 10_000, limit: 20 },
      { skip: 1_000_000, limit: 100 },
      { skip: 1_000_001, limit: 20 },
      { skip: 9_007_199_254_740_991, limit: 1 },
    ] as Record<string, number>[]) {
      const r = await history(m.apiKey, q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body).toMatchObject({
        statusCode: 400,
        success: false,
        message: BEYOND,
        errors: [{ path: 'skip', message: expect.any(String) }],
      });
    }
    // Past the largest whole number a JSON client can send exactly: a malformed query, not a page.
    const huge = await history(m.apiKey, { skip: '99999999999999999999' });
    expect([huge.status, huge.body.message, huge.body.errors?.[0]?.path]).toEqual([400, 'Invalid query parameters', 'skip']);
    const both = await history(m.apiKey, { skip: 5, startingAfter: mine[3]!.billingRequestId });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ message: 'Invalid query parameters', errors: [{ path: 'skip' }] });
  });
});

describe('customer decisions: startingAfter', () => {
  let agreements: Agreement[];
  let foreign: Agreement;

  beforeAll(async () => {
    const first = await agreement(t, { decision: 'approve_once' });
    agreements = [first];
    for (let i = 0; i < 4; i++)
      agreements.push(await agreement(t, { decision: i % 2 ? 'deny' : 'approve_once', bank: first.bank, merchant: first.merchant }));
    foreign = await agreement(t, { decision: 'approve_once' });
  });

  it("the bank's and the merchant's lists walk every decision once, newest first", async () => {
    const a0 = agreements[0]!;
    const all = await t.call('GET', '/v1/bank/customer-decisions', { key: a0.bank.apiKey, query: { limit: 100 } });
    expect(all.body).toMatchObject({ total: 5, hasMore: false });
    const ids = all.body.data.map((d: { id: string }) => d.id);
    expect([...ids].sort()).toEqual(agreements.map((a) => a.decisionId).sort());
    for (const [key, path] of [
      [a0.bank.apiKey, '/v1/bank/customer-decisions'],
      [a0.merchant.apiKey, '/v1/merchant/customer-decisions'],
    ] as const) {
      const pages = await walk(
        (after) => t.call('GET', path, { key, query: { limit: 2, ...(after ? { startingAfter: after } : {}) } }),
        (b) => b.data,
        (x) => x.id,
      );
      expect(pages.flatMap((p) => p.data.map((d: { id: string }) => d.id))).toEqual(ids);
      expect(pages).toHaveLength(3);
      expect(pages.at(-1).hasMore).toBe(false);
      for (const p of pages.slice(1)) expect(p).not.toHaveProperty('total');
    }
    // A filter that cannot be a key condition, across pages.
    const denied = ids.filter(
      (_: string, i: number) => all.body.data[i].customerDecision === 'deny' || all.body.data[i].decision === 'deny',
    );
    const deniedPages = await walk(
      (after) =>
        t.call('GET', '/v1/bank/customer-decisions', {
          key: a0.bank.apiKey,
          query: { limit: 1, decision: 'deny', ...(after ? { startingAfter: after } : {}) },
        }),
      (b) => b.data,
      (x) => x.id,
    );
    expect(deniedPages.flatMap((p) => p.data.map((d: { id: string }) => d.id))).toEqual(denied);
    expect(denied).toHaveLength(2);
  });

  it('a foreign or forged cursor is 400 and shows nothing of the other tenant', async () => {
    const a0 = agreements[0]!;
    for (const [key, path] of [
      [a0.bank.apiKey, '/v1/bank/customer-decisions'],
      [a0.merchant.apiKey, '/v1/merchant/customer-decisions'],
    ] as const) {
      for (const cursor of [foreign.decisionId, `dec_${randomToken(22)}`, 'x']) {
        const r = await t.call('GET', path, { key, query: { startingAfter: cursor } });
        expect(r.status, `${path} ${cursor}`).toBe(400);
        expect(r.body).toMatchObject({ message: 'Invalid query parameters', errors: [{ path: 'startingAfter' }] });
        expect(JSON.stringify(r.body)).not.toContain(foreign.customerId);
      }
      const r = await t.call('GET', path, { key, query: { skip: 9_999, limit: 2 } });
      expect(r.body).toMatchObject({ statusCode: 400, message: BEYOND });
    }
  });
});

describe('POST /v1/billing/bank-responses', () => {
  async function pendingBills(a: Agreement, n: number): Promise<{ billingRequestId: string; reference: string }[]> {
    const out = [];
    for (let i = 0; i < n; i++) {
      const r = await bill(t, a.merchant, [a.agreementPhrase], 10 + i);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      out.push(r.body[0]);
    }
    return out;
  }

  it("mixed answers: approved, denied, unknown, already answered, another bank's -> 207, each element as the single route", async () => {
    const a = await agreement(t, { decision: 'approve_once', receiver: rx });
    const b = await agreement(t, { decision: 'approve_once' });
    const [p1, p2, p3] = await pendingBills(a, 3);
    const [foreignBill] = await pendingBills(b, 1);
    expect((await bankResponse(t, a.bank, p3!.billingRequestId, 'approve_once', 'BTX-first')).status).toBe(200);
    const unknown = `breq_${randomToken(20)}`;
    const body = {
      responses: [
        { billingRequestId: p1!.billingRequestId, action: 'approve_once', bankTransactionId: 'BTX-p1' },
        { billingRequestId: p2!.billingRequestId, action: 'deny' },
        { billingRequestId: unknown, action: 'approve_once', bankTransactionId: 'BTX-u' },
        { billingRequestId: p3!.billingRequestId, action: 'approve_once', bankTransactionId: 'BTX-again' },
        { billingRequestId: foreignBill!.billingRequestId, action: 'approve_once', bankTransactionId: 'BTX-f' },
      ],
    };
    const r = await t.call('POST', '/v1/billing/bank-responses', {
      key: a.bank.apiKey,
      body,
      headers: { 'Idempotency-Key': `batch-${randomToken(8)}` },
    });
    expect(r.status).toBe(207);
    expect(r.body).toEqual([
      { billingRequestId: p1!.billingRequestId, statusCode: 200, success: true, message: 'Billing response recorded' },
      { billingRequestId: p2!.billingRequestId, statusCode: 200, success: true, message: 'Billing response recorded' },
      { billingRequestId: unknown, statusCode: 404, success: false, message: 'Billing request not found', ...refused404 },
      {
        billingRequestId: p3!.billingRequestId,
        statusCode: 409,
        success: false,
        message: 'Billing request has already been answered',
        ...answered409,
      },
      {
        billingRequestId: foreignBill!.billingRequestId,
        statusCode: 404,
        success: false,
        message: 'Billing request not found',
        ...refused404,
      },
    ]);
    expect(await getBill(p1!.billingRequestId)).toMatchObject({ status: 'succeeded', bankTransactionId: 'BTX-p1' });
    expect(await getBill(p2!.billingRequestId)).toMatchObject({ status: 'declined' });
    expect(await getBill(p3!.billingRequestId)).toMatchObject({ status: 'succeeded', bankTransactionId: 'BTX-first' });
    expect((await getBill(foreignBill!.billingRequestId))!.status).toBe('pending');
    // The single route gives the same element answers.
    const single = await t.call('POST', '/v1/billing/bank-response', { key: a.bank.apiKey, body: body.responses[4] });
    expect(single.body).toMatchObject({ statusCode: 404, message: 'Billing request not found' });
    // One billing.response per answered billing, never two.
    await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === p1!.reference);
    await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === p2!.reference);
    await t.app.settle();
    for (const p of [p1!, p2!, p3!])
      expect(receivedEvents(rx, a.hooks!.merchant, 'billing.response').filter((e) => e.data.reference === p.reference)).toHaveLength(1);
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });

  it("per-element idempotency: repeating applied answers is each element's 409; the same Idempotency-Key replays the first answer", async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const [p1, p2] = await pendingBills(a, 2);
    const body = {
      responses: [
        { billingRequestId: p1!.billingRequestId, action: 'approve_once', bankTransactionId: 'BTX-1' },
        { billingRequestId: p2!.billingRequestId, action: 'approve_once', bankTransactionId: 'BTX-2' },
        // The same billing twice in one batch: the second is a repeat.
        { billingRequestId: p1!.billingRequestId, action: 'deny' },
      ],
    };
    const key = `batch-${randomToken(8)}`;
    const first = await t.call('POST', '/v1/billing/bank-responses', { key: a.bank.apiKey, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(207);
    expect(first.body.map((e: { statusCode: number }) => e.statusCode)).toEqual([200, 200, 409]);
    const replay = await t.call('POST', '/v1/billing/bank-responses', { key: a.bank.apiKey, body, headers: { 'Idempotency-Key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.status).toBe(207);
    expect(replay.body).toEqual(first.body);
    const again = await t.call('POST', '/v1/billing/bank-responses', {
      key: a.bank.apiKey,
      body: { responses: body.responses.slice(0, 2) },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual([
      {
        billingRequestId: p1!.billingRequestId,
        statusCode: 409,
        success: false,
        message: 'Billing request has already been answered',
        ...answered409,
      },
      {
        billingRequestId: p2!.billingRequestId,
        statusCode: 409,
        success: false,
        message: 'Billing request has already been answered',
        ...answered409,
      },
    ]);
    expect(await getBill(p1!.billingRequestId)).toMatchObject({ status: 'succeeded', bankTransactionId: 'BTX-1' });
    expect(await getBill(p2!.billingRequestId)).toMatchObject({ status: 'succeeded', bankTransactionId: 'BTX-2' });
    // All approved at once: 200.
    const [p3, p4] = await pendingBills(a, 2);
    const all = await t.call('POST', '/v1/billing/bank-responses', {
      key: a.bank.apiKey,
      body: {
        responses: [p3!, p4!].map((p) => ({
          billingRequestId: p.billingRequestId,
          action: 'approve_once',
          bankTransactionId: `BTX-${p.billingRequestId}`,
        })),
      },
    });
    expect(all.status).toBe(200);
    expect(all.body.every((e: { success: boolean }) => e.success)).toBe(true);
  });

  it('bad bodies -> 400 Invalid request parameters, nothing answered; other kinds 403', async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const [p1] = await pendingBills(a, 1);
    const ok = { billingRequestId: p1!.billingRequestId, action: 'approve_once', bankTransactionId: 'X' };
    for (const body of [
      {},
      { responses: [] },
      { responses: Array.from({ length: 101 }, () => ok) },
      { responses: [ok, { billingRequestId: p1!.billingRequestId, action: 'approve' }] },
      { responses: [ok, { billingRequestId: p1!.billingRequestId, action: 'approve_once' }] },
      { responses: [ok], extra: 1 },
      { responses: ok },
    ]) {
      const r = await t.call('POST', '/v1/billing/bank-responses', { key: a.bank.apiKey, body });
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    expect((await getBill(p1!.billingRequestId))!.status).toBe('pending');
    const asMerchant = await t.call('POST', '/v1/billing/bank-responses', { key: a.merchant.apiKey, body: { responses: [ok] } });
    expect(asMerchant.status).toBe(403);
  });
});

describe('the other lists: startingAfter, hasMore, foreign cursors, the bound', () => {
  it("a provider's merchants (oldest first) and trust list; offset + limit above 10,000 is refused", async () => {
    const p = await t.participant('provider');
    const q = await t.participant('provider');
    const ms: Party[] = [];
    for (let i = 0; i < 5; i++) ms.push(await t.participant('merchant', { providerId: p.id }));
    const theirs = await t.participant('merchant', { providerId: q.id });
    for (const [path, items, idOf] of [
      ['/v1/provider/merchants', (b: any) => b.data.merchants, (x: any) => x.id],
      ['/v1/provider/merchant/trust/multiple', (b: any) => b.data, (x: any) => x.entityId],
    ] as const) {
      const pages = await walk(
        (after) => t.call('GET', path, { key: p.apiKey, query: { limit: 2, ...(after ? { startingAfter: after } : {}) } }),
        items,
        idOf,
      );
      expect(pages.flatMap((b) => items(b).map(idOf))).toEqual(ms.map((m) => m.id));
      const foreign = await t.call('GET', path, { key: p.apiKey, query: { startingAfter: theirs.id } });
      expect(foreign.body).toMatchObject({ statusCode: 400, message: 'Invalid query parameters', errors: [{ path: 'startingAfter' }] });
      expect(JSON.stringify(foreign.body)).not.toContain(theirs.name);
      const beyond = await t.call('GET', path, { key: p.apiKey, query: { offset: 9_950, limit: 51 } });
      expect(beyond.body).toMatchObject({ statusCode: 400, message: BEYOND, errors: [{ path: 'offset' }] });
    }
    const narrowed = await t.call('GET', '/v1/provider/merchants', {
      key: p.apiKey,
      query: { ids: ms.map((m) => m.id).join(','), limit: 2, startingAfter: ms[2]!.id },
    });
    expect(narrowed.body.data).toEqual({
      merchants: [expect.objectContaining({ id: ms[3]!.id }), expect.objectContaining({ id: ms[4]!.id })],
      hasMore: false,
    });
  });

  it('schedules, subscriptions, webhook endpoints and deliveries refuse a foreign cursor and the 10,000 bound', async () => {
    const a = await t.participant('merchant');
    const b = await t.participant('merchant');
    const bank = await t.participant('bank');
    const mine = await t.call('POST', '/v1/webhooks/endpoints', { key: a.apiKey, body: { url: 'https://example.com/a' } });
    const other = await t.call('POST', '/v1/webhooks/endpoints', { key: b.apiKey, body: { url: 'https://example.com/b' } });
    expect(mine.status).toBe(201);
    const own = await t.call('GET', '/v1/webhooks/endpoints', { key: a.apiKey, query: { startingAfter: mine.body.data.id } });
    expect(own.body.data).toEqual({ endpoints: [], hasMore: false });
    const first = await t.call('GET', '/v1/webhooks/endpoints', { key: a.apiKey });
    expect(first.body.data).toMatchObject({ total: 1, hasMore: false });
    for (const [key, path] of [
      [a.apiKey, '/v1/webhooks/endpoints'],
      [a.apiKey, '/v1/webhooks/deliveries'],
      [a.apiKey, '/v1/recurring'],
      [bank.apiKey, '/v1/bank/customer/subscriptions'],
    ] as const) {
      for (const cursor of [other.body.data.id, 'sch_0000000000', 'whd_forged']) {
        const r = await t.call('GET', path, { key, query: { startingAfter: cursor } });
        expect(r.body, `${path} ${cursor}`).toMatchObject({
          statusCode: 400,
          message: 'Invalid query parameters',
          errors: [{ path: 'startingAfter' }],
        });
      }
      const r = await t.call('GET', path, { key, query: { skip: 10_000, limit: 1 } });
      expect(r.body, path).toMatchObject({ statusCode: 400, message: BEYOND });
      const okPage = await t.call('GET', path, { key, query: { skip: 9_999, limit: 1 } });
      expect(okPage.status, path).toBe(200);
    }
  });
});
