/**
 * Fault injection (reliability suite 3). Faults go INTO the real SDK clients
 * (test/support/faults.ts): throttling, TransactionConflict cancellations, timeouts and
 * reset connections on DynamoDB, RequestThrottled / timeouts on SQS, per attempt (the SDK
 * retries) and per call (the application sees them), before the request and after it was
 * applied (ambiguous). DynamoDB Local and the SQS emulator stay real.
 *
 * The scenario, with faults on: customers of one merchant are billed (agreement bills and
 * one-time pays), the bank answers, refunds are initiated, webhook endpoints are added and
 * tested, and ticks run (refund completion) — by a client that retries what the API says
 * to retry with Idempotency-Keys. Asserted:
 *
 *   - every answer is a success or a clean envelope (JSON; a 5xx is the bare internal
 *     error envelope; no request hangs);
 *   - after the faults stop and the system settles (ticks, including the settlement day
 *     and the recovery of stale deliveries), there is no partial state: ledger invariant,
 *     limit counters = succeeded + pending per period, statuses consistent with ledger
 *     entries, every state change has its event, every delivery was delivered and
 *     received; and no billing or refund exists that the client was told had failed.
 *
 * Seed: FAULT_SEED (default 4242). RELIABILITY_LONG=1 runs more customers and a second
 * seed with higher rates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { localVisibilitySeconds } from '../../local/resources';
import { injectFaults, type FaultConfig, type Faults } from '../support/faults';
import { agreement, type Agreement } from '../support/flows';
import { startReceiver, type Receiver } from '../../local/receiver';
import { RetryingClient, messageOf } from '../support/careful-client';
import { checkInvariants, dueCount, scanAll } from '../support/invariants';
import { premiumMerchant } from '../support/reliability-world';
import { sleep } from '../../functions/platform/retry';
import { QUEUES } from '../../functions/platform/definitions';
import { RECEIPT_PK_PREFIX, receiptDeliveryIds } from '../../functions/events/receipts';
import { db, queue } from '../../functions/platform/clients';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';

/**
 * The lanes' visibility timeout here: 20 s instead of the deployed 60 s (a message left in flight
 * by a failed worker comes back only then, in real time; the attempts here answer at once).
 */
const VISIBILITY_SECONDS = 20;
/** How long a webhook lane's received message stays invisible (the longest of the lanes). */
const WEBHOOK_VISIBILITY_MS =
  Math.max(...QUEUES.filter((q) => q.name.startsWith('webhooks')).map((q) => localVisibilitySeconds(q, VISIBILITY_SECONDS))) * 1000;

const LONG = process.env.RELIABILITY_LONG === '1';
const SEED = Number(process.env.FAULT_SEED || 4242);

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await startTestApp({
    RATE_LIMIT_PER_MINUTE: '1000000',
    REFUND_AUTO_COMPLETE_SECONDS: '1',
    WEBHOOK_BACKOFF_BASE_SECONDS: '1',
    WEBHOOK_MAX_ATTEMPTS: '12',
    LOCAL_VISIBILITY_TIMEOUT_SECONDS: String(VISIBILITY_SECONDS),
  });
  rx = await startReceiver();
});

afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

/** Faults off: tick (into the settlement day, past every lease and grace) until nothing is due or pending. */
async function recover(rounds = 8): Promise<string[]> {
  const notes: string[] = [];
  await t.app.settle(60_000).catch(() => notes.push('first settle timed out'));
  const start = Date.now() + 12 * 86_400_000;
  for (let k = 0; k < rounds; k++) {
    const at = new Date(start + k * 900_000);
    await t.app.tick(at);
    await t.app.settle(60_000).catch(() => notes.push(`settle after tick ${k} timed out`));
    const items = await scanAll();
    const pending = items.filter((i) => String(i.pk).startsWith('WHDL#') && i.sk === 'WHDL' && i.status === 'pending');
    // A delivery whose first claim failed has no record yet: its receipt names it (made at `dlvAt`).
    const records = new Set(items.filter((i) => String(i.pk).startsWith('WHDL#')).map((i) => String(i.id)));
    const unclaimed = items
      .filter((i) => String(i.pk).startsWith(RECEIPT_PK_PREFIX) && typeof i.dlvAt === 'string')
      .flatMap((r) =>
        receiptDeliveryIds(r)
          .filter((id) => !records.has(id))
          .map(() => String(r.dlvAt)),
      );
    const due = await dueCount(at);
    notes.push(`recovery tick ${k}: ${pending.length} pending deliveries, ${unclaimed.length} not claimed yet, ${due} due`);
    if (pending.length === 0 && unclaimed.length === 0 && due === 0) break;
    // An attempt whose worker failed (a record with a lease: deliveries from before release 4's
    // at-least-once attempts, which write nothing before the POST) holds its delivery until the
    // lease ends, in real time. The failed attempt's message was not deleted: SQS makes it visible
    // again after the lane's visibility timeout (real time too), and that copy carries the
    // delivery on (the claim took it off the due index). A delivery still on the due index is
    // re-sent by the next tick's recovery. Wait for whichever applies, from its last attempt.
    // A first message whose claim failed comes back the same way, at the latest a visibility
    // timeout after it was received (after the delivery was made; if that is past, briefly).
    const leaseEnd = Math.max(0, ...pending.map((d) => Number(d.leaseUntil ?? 0)));
    const redelivery = Math.max(
      0,
      ...pending
        .filter((d) => d.duePk === undefined && d.lastAttemptAt)
        .map((d) => Date.parse(String(d.lastAttemptAt)) + WEBHOOK_VISIBILITY_MS),
    );
    const firstBack = unclaimed.length ? Math.max(Date.now() + 5_000, ...unclaimed.map((at) => Date.parse(at) + WEBHOOK_VISIBILITY_MS)) : 0;
    const until = Math.max(leaseEnd, redelivery, firstBack);
    if (until > Date.now()) await sleep(until - Date.now() + 1_000);
  }
  return notes;
}

interface Ledger {
  /** Billing requests / refunds the client was told exist. */
  bills: Set<string>;
  refunds: Set<string>;
  /** Operations that ended without a final answer (budget spent): their outcome is unknown to the client. */
  unknown: string[];
}

async function scenario(cfg: FaultConfig, customers: number, label: string) {
  const client = new RetryingClient(t, { budgetMs: 100_000 });
  const { provider, merchant } = await premiumMerchant(t);
  const bank = await t.participant('bank');
  const parties: Agreement[] = [];
  for (let i = 0; i < customers; i++) {
    parties.push(await agreement(t, { decision: 'approve_recurring', limits: { daily: 100 }, bank, merchant, provider, receiver: rx }));
  }
  const seen: Ledger = { bills: new Set(), refunds: new Set(), unknown: [] };
  const faults: Faults = injectFaults(cfg);
  const post = (what: string, key: string, path: string, body: unknown, idem: string, headers?: Record<string, string>) =>
    client.call(what, { method: 'POST', path, key, body, idem: `${label}-${idem}`, headers });
  const note = (what: string, r: { gaveUp: boolean; status: number; body: unknown }) => {
    if (r.gaveUp) seen.unknown.push(`${what}: ${r.status} ${messageOf(r.body)}`);
  };

  faults.enable();
  let ticking = true;
  let tickErrors = 0;
  const ticker = (async () => {
    while (ticking) {
      await t.app.tick(new Date(Date.now() + 3_000)).catch(() => tickErrors++);
      await sleep(400);
    }
  })();
  try {
    await Promise.all([
      ...parties.map(async (a, i) => {
        const created: { id: string; reference: string; approve: boolean }[] = [];
        // Bills over the daily limit (20 + 30 + 45 = 95 of 100; the 4th is refused), and a one-time pay.
        for (const [j, amount] of [20, 30, 45, 25].entries()) {
          const r = await post(
            `bill ${i}.${j}`,
            merchant.apiKey,
            '/v1/customer/bill',
            { agreementPhrases: [a.agreementPhrase], amount, currency: 'NGN', description: `fault ${i}.${j}` },
            `bill-${i}-${j}`,
          );
          note(`bill ${i}.${j}`, r);
          if (r.status === 201) {
            seen.bills.add(r.body[0].billingRequestId);
            created.push({ id: r.body[0].billingRequestId, reference: r.body[0].reference, approve: j !== 1 });
          }
        }
        const p = await post(
          `pay ${i}`,
          merchant.apiKey,
          '/v1/customer/pay',
          { lookupPhrases: [a.lookupPhrase], amount: 3, currency: 'NGN', description: `fault pay ${i}` },
          `pay-${i}`,
        );
        note(`pay ${i}`, p);
        if (p.status === 201) {
          seen.bills.add(p.body[0].billingRequestId);
          created.push({ id: p.body[0].billingRequestId, reference: p.body[0].reference, approve: i % 2 === 0 });
        }
        // The bank answers each one (approve, or deny one of them).
        const paid: typeof created = [];
        for (const c of created) {
          const r = await post(
            `answer ${c.id}`,
            bank.apiKey,
            '/v1/billing/bank-response',
            { billingRequestId: c.id, action: c.approve ? 'approve_once' : 'deny', bankTransactionId: `BTX-${c.id}` },
            `answer-${c.id}`,
          );
          note(`answer ${c.id}`, r);
          if (r.status === 200 && r.body.data?.status === 'succeeded') paid.push(c);
        }
        // Refunds: a partial one on each captured billing, then the rest of the first.
        for (const [k, c] of paid.entries()) {
          const r = await post(
            `refund ${c.id}`,
            merchant.apiKey,
            '/v1/refunds/initiate',
            { reference: c.reference, amount: 5, reason: 'fault test' },
            `refund-${c.id}`,
          );
          note(`refund ${c.id}`, r);
          if (r.status === 201) seen.refunds.add(r.body.data.refundId);
          if (k === 0) {
            const rest = await post(
              `refund rest ${c.id}`,
              merchant.apiKey,
              '/v1/refunds/initiate',
              { reference: c.reference },
              `refund-rest-${c.id}`,
            );
            note(`refund rest ${c.id}`, rest);
            if (rest.status === 201) seen.refunds.add(rest.body.data.refundId);
          }
        }
        // A decision update and an intent on the way (the limits stay).
        const intent = await post(
          `intent ${i}`,
          merchant.apiKey,
          '/v1/billing/intent',
          { lookupPhrases: [a.lookupPhrase], currency: 'NGN', description: 'again' },
          `intent-${i}`,
        );
        note(`intent ${i}`, intent);
        if (intent.status === 200) {
          const r = await post(
            `intent-response ${i}`,
            bank.apiKey,
            '/v1/billing/intent-response',
            {
              customerId: a.customerId,
              entityId: merchant.id,
              lookupPhrase: a.lookupPhrase,
              customerDecision: 'approve_recurring',
              spendingLimits: { daily: 100 },
              intentId: intent.body[0].intentId,
            },
            `intent-response-${i}`,
          );
          note(`intent-response ${i}`, r);
        }
      }),
      // Webhook management under faults: a new endpoint, a test event, a secret rotation.
      (async () => {
        const { url } = rx.endpointUrl(`${label}-extra`);
        const ep = await post('endpoint', merchant.apiKey, '/v1/webhooks/endpoints', { url }, 'endpoint');
        note('endpoint', ep);
        if (ep.status === 201) {
          note(
            'test event',
            await post('test event', merchant.apiKey, `/v1/webhooks/endpoints/${ep.body.data.id}/test`, undefined, 'test'),
          );
          note(
            'rotate',
            await post('rotate', merchant.apiKey, `/v1/webhooks/endpoints/${ep.body.data.id}/rotate-secret`, undefined, 'rotate'),
          );
        }
      })(),
    ]);
  } finally {
    ticking = false;
    await ticker;
    faults.disable();
  }
  const recovery = await recover();
  const report = await checkInvariants({ receiver: rx, refundsFinal: true });
  faults.remove();

  // No billing or refund the client does not know of (a "failed" answer that in fact created one).
  const items = await scanAll();
  const phantomBills = items.filter(
    (i) => String(i.pk).startsWith('BILL#') && i.merchantId === merchant.id && !seen.bills.has(String(i.billingRequestId)),
  );
  const phantomRefunds = items.filter(
    (i) => String(i.pk).startsWith('REFUND#') && i.merchantId === merchant.id && !seen.refunds.has(String(i.refundId)),
  );

  const summary = [
    `${label}: ${faults.describe()}`,
    `client: ${client.requests} requests; tick errors under faults: ${tickErrors}; final counts ${JSON.stringify(report.counts)}`,
    ...recovery,
    `unknown outcomes (budget spent): ${seen.unknown.length ? seen.unknown.join('; ') : 'none'}`,
    `stuck replays: ${client.stuckReplays.length ? client.stuckReplays.join('; ') : 'none'}`,
  ].join('\n');
  if (process.env.FAULT_REPORT || LONG) console.log(`${summary}\n${client.summary()}`);

  const unknownBills = seen.unknown.filter((u) => /^(bill|pay)/.test(u)).length;
  const unknownRefunds = seen.unknown.filter((u) => /^refund/.test(u)).length;
  const failures = [
    ...(faults.stats.injected > 0 ? [] : ['no fault was injected']),
    ...client.problems.map((p) => `answer not clean: ${p}`),
    ...report.problems.map((p) => `partial state after recovery: ${p}`),
    // Only an operation whose outcome the client never learned may have left a resource it does not know of.
    ...(phantomBills.length > unknownBills
      ? [
          `billings the client was told had failed: ${phantomBills.map((b) => `${String(b.billingRequestId)} ${String(b.status)}`).join(', ')}`,
        ]
      : []),
    ...(phantomRefunds.length > unknownRefunds
      ? [`refunds the client was told had failed: ${phantomRefunds.map((b) => String(b.refundId)).join(', ')}`]
      : []),
    ...(report.counts.succeeded! > 0 ? [] : ['no billing succeeded']),
    ...(report.counts.completedRefunds! > 0 ? [] : ['no refund completed']),
  ];
  expect(failures, `${summary}\n${failures.join('\n')}`).toEqual([]);
  return { client, report };
}

describe('fault injection: DynamoDB and SQS faults at random, then recovery', () => {
  it(
    `seed ${SEED}: clean answers (each with X-Request-Id), no partial state, no event lost`,
    async () => {
      // npm test: lighter rates and two customers (an ambiguous idempotency claim holds its key
      // for 60 s of real time, which dominates the run); the long form: the full rates, ten customers.
      await scenario(
        {
          seed: SEED,
          dynamo: [
            { layer: 'attempt', rate: LONG ? 0.15 : 0.1, afterShare: LONG ? 0.2 : 0.1 },
            { layer: 'call', rate: LONG ? 0.04 : 0.02, afterShare: LONG ? 0.3 : 0.2 },
          ],
          sqs: [
            { layer: 'attempt', rate: 0.2, afterShare: 0.2 },
            { layer: 'call', rate: LONG ? 0.1 : 0.05, afterShare: 0.3 },
          ],
        },
        LONG ? 10 : 2,
        `s${SEED}`,
      );
    },
    LONG ? 900_000 : 420_000,
  );

  it.runIf(LONG)(
    `seed ${SEED + 1}: heavier faults (20% per attempt, 8% per call)`,
    async () => {
      await scenario(
        {
          seed: SEED + 1,
          dynamo: [
            { layer: 'attempt', rate: 0.2, afterShare: 0.25 },
            { layer: 'call', rate: 0.08, afterShare: 0.3 },
          ],
          sqs: [
            { layer: 'attempt', rate: 0.2, afterShare: 0.25 },
            { layer: 'call', rate: 0.2, afterShare: 0.3 },
          ],
        },
        8,
        `s${SEED + 1}`,
      );
    },
    900_000,
  );
});

describe('storing the idempotent answer fails (DynamoDB down for that one write)', () => {
  const idemWrites = (command: string, input: unknown) =>
    /^(UpdateItem|DeleteItem)$/.test(command) && JSON.stringify(input ?? '').includes('IDEM#');

  it('a refused request still answers its own envelope (with X-Request-Id), not a failed invocation', async () => {
    const m = await t.participant('merchant');
    // refunds/initiate is deferred: its refusal is stored with a Put (no claim before it).
    const f = injectFaults({
      seed: 11,
      dynamo: [{ layer: 'call', rate: 1 }],
      match: (command, input) => command === 'PutItem' && JSON.stringify(input ?? '').includes('IDEM#'),
    });
    f.enable();
    const r = await t.call('POST', '/v1/refunds/initiate', {
      key: m.apiKey,
      body: { reference: 'txn_unknown' },
      headers: { 'idempotency-key': `idem-fail-${Date.now()}` },
    });
    f.remove();
    expect(f.stats.injected).toBeGreaterThan(0);
    expect(r.headers.get('x-request-id'), JSON.stringify(r.body)).toBeTruthy();
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Transaction not found' });
  });

  it('a committed request answers its real result (not a 500 that invites a duplicate)', async () => {
    const m = await t.participant('merchant');
    const { url } = rx.endpointUrl('idem-store-fails');
    const f = injectFaults({ seed: 12, dynamo: [{ layer: 'call', rate: 1 }], match: idemWrites });
    f.enable();
    const r = await t.call('POST', '/v1/webhooks/endpoints', {
      key: m.apiKey,
      body: { url },
      headers: { 'idempotency-key': `idem-commit-${Date.now()}` },
    });
    f.remove();
    expect(f.stats.injected).toBeGreaterThan(0);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const list = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(list.body.data.endpoints.filter((e: { url: string }) => e.url === url)).toHaveLength(1);
  });
});

describe('a keyed money request killed between its commit and its reply (DESIGN 10.2)', () => {
  // The answer's transaction commits (with the key's record in it) and the reply is lost, as
  // when the process dies right after the commit: the bank's retry with the same key must get
  // the first 200, not a 409 "already answered" stored as the key's answer.
  const killedAfterCommit = (seed: number, id: string) =>
    injectFaults({
      seed,
      dynamo: [{ layer: 'call', rate: 1, afterShare: 1 }],
      commands: /^TransactWriteItems$/,
      match: (_command, input) => JSON.stringify(input ?? '').includes(id),
    });
  /** `body` answers (or makes) resource `id`: the one transaction that writes it commits and its reply is lost. */
  const answerKilled = async (seed: number, path: string, key: string, id: string, body: Record<string, unknown>, status = 200) => {
    const request = { key, body, headers: { 'idempotency-key': `killed-${seed}-${Date.now()}` } };
    const f = killedAfterCommit(seed, id);
    f.enable();
    const killed = await t.call('POST', path, request);
    f.remove();
    expect(f.stats.injected, f.describe()).toBe(1);
    expect(killed.status, JSON.stringify(killed.body)).toBe(500);
    const retry = await t.call('POST', path, request);
    expect(retry.status, JSON.stringify(retry.body)).toBe(status);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    return retry.body;
  };

  it('bank-response and refund-response: the retry with the same key answers the original 200', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    const b = await t.call('POST', '/v1/customer/bill', {
      key: a.merchant.apiKey,
      body: { agreementPhrases: [a.agreementPhrase], amount: 30, currency: 'NGN', description: 'killed answer' },
    });
    expect(b.status).toBe(201);
    const billingRequestId: string = b.body[0].billingRequestId;
    const approved = await answerKilled(41, '/v1/billing/bank-response', a.bank.apiKey, billingRequestId, {
      billingRequestId,
      action: 'approve_recurring',
      bankTransactionId: `BTX-killed-${Date.now()}`,
    });
    expect(approved.data).toMatchObject({ billingRequestId, status: 'succeeded' });

    const rf = await t.call('POST', '/v1/refunds/initiate', {
      key: a.merchant.apiKey,
      body: { reference: b.body[0].reference, amount: 10 },
    });
    expect(rf.status).toBe(201);
    const refundId: string = rf.body.data.refundId;
    // Processing first, so that the keyed answer's one transaction is the completion.
    const processing = await t.call('POST', '/v1/billing/refund-response', {
      key: a.bank.apiKey,
      body: { refundId, status: 'processing' },
    });
    expect(processing.status).toBe(200);
    const completed = await answerKilled(42, '/v1/billing/refund-response', a.bank.apiKey, refundId, { refundId, status: 'completed' });
    expect(completed.data).toMatchObject({ refundId, status: 'completed', amount: 10 });
    // Applied once: the transaction shows the one refund.
    const tx = await t.call('GET', '/v1/transaction-details', { key: a.merchant.apiKey, query: { reference: b.body[0].reference } });
    expect(tx.body.data).toMatchObject({ status: 'partially_refunded', refundedAmount: 10 });
  });

  it('pay and refunds/initiate: the retry with the same key answers the original 201', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    const description = `killed pay ${Date.now()}`;
    const paid = await answerKilled(
      43,
      '/v1/customer/pay',
      a.merchant.apiKey,
      description,
      { lookupPhrases: [a.lookupPhrase], amount: 40, currency: 'NGN', description },
      201,
    );
    expect(paid).toEqual([expect.objectContaining({ statusCode: 201, lookupPhrase: a.lookupPhrase, amount: 40, status: 'pending' })]);
    const { billingRequestId, reference } = paid[0];
    const approved = await t.call('POST', '/v1/billing/bank-response', {
      key: a.bank.apiKey,
      body: { billingRequestId, action: 'approve_once', bankTransactionId: `BTX-killed-pay-${Date.now()}` },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);

    const refund = await answerKilled(44, '/v1/refunds/initiate', a.merchant.apiKey, reference, { reference, amount: 10 }, 201);
    expect(refund.data).toMatchObject({ reference, amount: 10, status: 'pending' });
    // Reserved once: the rest of the transaction is 30.
    const rest = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference } });
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body.data).toMatchObject({ amount: 30 });
    expect(rest.body.data.refundId).not.toBe(refund.data.refundId);
  });

  it("a dispute's opening, resolve (bank) and accept (merchant): the retry with the same key answers the original 201 / 200", async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    const captured = async (description: string) => {
      const b = await t.call('POST', '/v1/customer/bill', {
        key: a.merchant.apiKey,
        body: { agreementPhrases: [a.agreementPhrase], amount: 25, currency: 'NGN', description },
      });
      expect(b.status).toBe(201);
      const answered = await t.call('POST', '/v1/billing/bank-response', {
        key: a.bank.apiKey,
        body: { billingRequestId: b.body[0].billingRequestId, action: 'approve_recurring', bankTransactionId: `BTX-${description}` },
      });
      expect(answered.status).toBe(200);
      return b.body[0].reference as string;
    };
    const reference = await captured(`dispute-opened-${Date.now()}`);
    const opened = await answerKilled(
      47,
      '/v1/bank/disputes',
      a.bank.apiKey,
      reference,
      { reference, reason: 'unauthorized', amount: 10 },
      201,
    );
    expect(opened.data).toMatchObject({ reference, status: 'needs_response', amount: 10 });
    // Opened once: 10 of the 25 is disputed, and a second dispute may take the 15 left.
    const tx = await t.call('GET', '/v1/transaction-details', { key: a.merchant.apiKey, query: { reference } });
    expect(tx.body.data).toMatchObject({ disputedAmount: 10 });

    const billed = async (description: string) => {
      const reference = await captured(description);
      const d = await t.call('POST', '/v1/bank/disputes', {
        key: a.bank.apiKey,
        body: { reference, reason: 'unauthorized' },
      });
      expect(d.status, JSON.stringify(d.body)).toBe(201);
      return { reference, disputeId: d.body.data.disputeId as string };
    };
    const one = await billed(`dispute-won-${Date.now()}`);
    const won = await answerKilled(45, `/v1/bank/disputes/${one.disputeId}/resolve`, a.bank.apiKey, one.disputeId, { outcome: 'won' });
    expect(won.data).toMatchObject({ disputeId: one.disputeId, status: 'won' });
    const two = await billed(`dispute-accepted-${Date.now()}`);
    const lost = await answerKilled(46, `/v1/disputes/${two.disputeId}/accept`, a.merchant.apiKey, two.disputeId, {});
    expect(lost.data).toMatchObject({ disputeId: two.disputeId, status: 'lost' });
    // Each applied once: the won amount is back, the lost one is not.
    for (const [x, disputedAmount] of [
      [one, 0],
      [two, 25],
    ] as const) {
      const tx = await t.call('GET', '/v1/transaction-details', { key: a.merchant.apiKey, query: { reference: x.reference } });
      expect(tx.body.data, x.reference).toMatchObject({ disputedAmount });
    }
  });
});

describe('"retry shortly" and the Idempotency-Key', () => {
  it('a billing refused as busy (409, nothing written) is executed again when retried with the same key', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    const headers = { 'idempotency-key': `busy-${Date.now()}` };
    const body = { agreementPhrases: [a.agreementPhrase], amount: 12, currency: 'NGN', description: 'busy then retried' };
    // Every billing transaction conflicts: the bounded retries give up with the contention refusal.
    const f = injectFaults({
      seed: 21,
      dynamo: [{ layer: 'call', rate: 1, only: 'transaction-conflict' }],
      commands: /^TransactWriteItems$/,
    });
    f.enable();
    const busy = await t.call('POST', '/v1/customer/bill', { key: a.merchant.apiKey, body, headers });
    f.remove();
    expect(busy.status, JSON.stringify(busy.body)).toBe(409);
    expect(busy.body[0].message).toMatch(/retry shortly/);
    // The API said "retry shortly": the same request, same key, now goes through.
    const retried = await t.call('POST', '/v1/customer/bill', { key: a.merchant.apiKey, body, headers });
    expect(retried.headers.get('idempotent-replayed'), JSON.stringify(retried.body)).toBeNull();
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
  });
});

describe('a due job that loses a transaction race', () => {
  it('a sandbox refund whose completion is cancelled (TransactionConflict) completes at a later tick, never stays pending', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    const b = await t.call('POST', '/v1/customer/bill', {
      key: a.merchant.apiKey,
      body: { agreementPhrases: [a.agreementPhrase], amount: 20, currency: 'NGN', description: 'refund race' },
    });
    expect(b.status).toBe(201);
    const answer = await t.call('POST', '/v1/billing/bank-response', {
      key: a.bank.apiKey,
      body: { billingRequestId: b.body[0].billingRequestId, action: 'approve_recurring', bankTransactionId: `BTX-${Date.now()}` },
    });
    expect(answer.status).toBe(200);
    const rf = await t.call('POST', '/v1/refunds/initiate', {
      key: a.merchant.apiKey,
      body: { reference: b.body[0].reference, amount: 5 },
    });
    expect(rf.status).toBe(201);
    const refundId: string = rf.body.data.refundId;
    await t.app.settle();

    // The tick runs the completion while every transaction is cancelled by a conflict.
    const at = new Date(Date.now() + 60_000);
    const f = injectFaults({
      seed: 31,
      dynamo: [{ layer: 'call', rate: 1, only: 'transaction-conflict' }],
      commands: /^TransactWriteItems$/,
    });
    f.enable();
    await t.app.tick(at);
    await t.app.settle(30_000);
    f.remove();
    expect(f.stats.injected).toBeGreaterThan(0);

    // Faults gone: a later tick (past the claim's lease) finishes it.
    await t.app.tick(new Date(at.getTime() + 3_600_000));
    await t.app.settle(30_000);
    const status = await t.call('GET', `/v1/refunds/${refundId}/status`, { key: a.merchant.apiKey });
    expect(status.body.data.status, JSON.stringify(status.body)).toBe('completed');
  });
});

describe('the fault injector itself', () => {
  it('a faulted call is a bare 500 envelope; per-attempt throttling is absorbed by the SDK retries; off means off', async () => {
    const m = await t.participant('merchant');
    const always = injectFaults({ seed: 1, dynamo: [{ layer: 'call', rate: 1 }] });
    always.enable();
    const r = await t.call('GET', '/v1/balance/details', { key: m.apiKey });
    always.remove();
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      statusCode: 500,
      success: false,
      message: 'Internal server error',
      code: 'internal_error',
      type: 'api_error',
      docUrl: '/docs#error-internal_error',
      requestId: r.headers.get('x-request-id'),
    });
    expect(r.headers.get('x-request-id')).toBeTruthy();

    const half = injectFaults({ seed: 2, dynamo: [{ layer: 'attempt', rate: 0.3 }], commands: /^(Update|Query|Get)/ });
    half.enable();
    const answers = await Promise.all(Array.from({ length: 10 }, () => t.call('GET', '/v1/balance/details', { key: m.apiKey })));
    half.remove();
    expect(half.stats.injected).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(8);

    const off = injectFaults({ seed: 3, dynamo: [{ layer: 'call', rate: 1 }] });
    expect((await t.call('GET', '/v1/balance/details', { key: m.apiKey })).status).toBe(200);
    off.remove();
  });

  it('with a stream per rule, the n-th call a rule sees gets the same decision however DynamoDB and SQS calls interleave', async () => {
    const env = t.app.env;
    const outcomes = async (order: string) => {
      const f = injectFaults({
        seed: 299,
        streamPerRule: true,
        dynamo: [{ layer: 'call', rate: 0.3, afterShare: 0.5 }],
        sqs: [{ layer: 'call', rate: 0.3, afterShare: 0.5 }],
      });
      f.enable();
      const seen: Record<string, boolean[]> = { d: [], s: [] };
      try {
        for (const c of order) {
          const call =
            c === 'd'
              ? db().send(new GetCommand({ TableName: env.TABLE_NAME!, Key: { pk: 'FAULTS#probe', sk: 'probe' } }))
              : queue().send(new GetQueueAttributesCommand({ QueueUrl: env.QUEUE_URL_WEBHOOKS!, AttributeNames: ['All'] }));
          seen[c]!.push(
            await call.then(
              () => true,
              () => false,
            ),
          );
        }
      } finally {
        f.remove();
      }
      return seen;
    };
    const apart = await outcomes('dddddddddd' + 'ssssssssss');
    const interleaved = await outcomes('ds'.repeat(10));
    expect(interleaved).toEqual(apart);
    // Both rules faulted some calls and let others through.
    for (const k of ['d', 's']) expect(new Set(apart[k])).toEqual(new Set([true, false]));
  });
});
