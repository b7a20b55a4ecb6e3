/**
 * A transaction's events on its page (DESIGN 9.7; docs/decisions/dashboard-finding.md):
 * `GET /v1/transaction-details` answers `events`, the caller's events of the billing, its
 * refunds and its disputes, oldest first, each with the caller's own deliveries. They are
 * found by the ids the billing, the refund and the dispute keep (`eventIds`, appended by the
 * transaction that emitted them), never by a list scan. Each caller sees what the events API
 * shows it: the merchant and its provider the merchant's events, the bank its own; another
 * merchant gets 404. Real local stack: the events reach a real receiver through the stream
 * consumer and the webhook worker before the page is read.
 */
import { expect, it } from 'vitest';
import { billKey, type BillItem } from '../../functions/bills/types';
import { disputeKey, type DisputeItem } from '../../functions/disputes/views';
import { completeRefund } from '../../functions/refunds/complete';
import { refundKey, type RefundItem } from '../../functions/refunds/views';
import { getItem, table } from '../../functions/platform/table';
import { db } from '../../functions/platform/clients';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TestApp, withAppAndReceiver } from '../support/app';
import { agreement, bankResponse, bill, events, receivedEvents, type Hook } from '../support/flows';
import type { Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;
// The refund stays pending until the test completes it.
withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { REFUND_AUTO_COMPLETE_SECONDS: '3600' },
);

interface ShownDelivery {
  id: string;
  endpointId: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
}
interface ShownEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  deliveries: ShownDelivery[];
}

const details = (key: string, reference: string, headers?: Record<string, string>) =>
  t.call('GET', '/v1/transaction-details', { key, query: { reference }, headers });

/** The page's events once every delivery of `count` events is delivered (the worker answers after the read otherwise). */
async function settledEvents(key: string, reference: string, count: number, headers?: Record<string, string>): Promise<ShownEvent[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await details(key, reference, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const shown = r.body.data.events as ShownEvent[];
    const done =
      shown.length >= count && shown.every((e) => e.deliveries.length > 0 && e.deliveries.every((d) => d.status === 'delivered'));
    if (done || Date.now() > deadline) return shown;
    await new Promise((res) => setTimeout(res, 250));
  }
}

/** Every delivery of every event went to `hook`'s endpoint once and was answered 200. */
function deliveredTo(shown: ShownEvent[], hook: Hook) {
  for (const e of shown)
    expect(e.deliveries, e.type).toEqual([
      {
        id: expect.any(String),
        endpointId: hook.endpointId,
        status: 'delivered',
        attempts: 1,
        lastAttemptAt: expect.any(String),
        responseStatus: 200,
      },
    ]);
}

it("shows the caller's events of a transaction, its refund and its dispute, oldest first, with the caller's deliveries", async () => {
  const a = await agreement(t, { receiver: rx, withProvider: true });
  const hooks = a.hooks!;
  const billed = await bill(t, a.merchant, [a.agreementPhrase], 100, { description: 'Events on the page' });
  expect(billed.status).toBe(201);
  const { reference, billingRequestId } = billed.body[0] as { reference: string; billingRequestId: string };
  expect((await bankResponse(t, a.bank, billingRequestId, 'approve_once')).status).toBe(200);

  const refund = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference, amount: 10 } });
  expect(refund.status, JSON.stringify(refund.body)).toBe(201);
  const refundId = refund.body.data.refundId as string;
  expect((await completeRefund(refundId, new Date()))?.status).toBe('completed');

  const opened = await t.call('POST', '/v1/bank/disputes', { key: a.bank.apiKey, body: { reference, reason: 'not_received', amount: 20 } });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  const disputeId = opened.body.data.disputeId as string;
  expect((await t.call('POST', `/v1/disputes/${disputeId}/accept`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);

  // The merchant's page: its five events, in the order they happened, the ones its endpoint received.
  const MERCHANT_TYPES = ['billing.response', 'refund.updated', 'refund.updated', 'dispute.created', 'dispute.updated'];
  await events(rx, hooks.merchant, 'dispute.updated', 1, (e) => e.data.disputeId === disputeId);
  const forMerchant = await settledEvents(a.merchant.apiKey, reference, MERCHANT_TYPES.length);
  expect(forMerchant.map((e) => e.type)).toEqual(MERCHANT_TYPES);
  const received = receivedEvents(rx, hooks.merchant).filter(
    (e) => e.data.reference === reference || e.data.refundId === refundId || e.data.disputeId === disputeId,
  );
  expect(new Set(forMerchant.map((e) => e.id))).toEqual(new Set(received.map((e) => e.id)));
  expect(forMerchant.map((e) => e.createdAt)).toEqual([...forMerchant.map((e) => e.createdAt)].sort());
  expect(forMerchant[0]!.data).toMatchObject({ reference, status: 'succeeded' });
  expect(forMerchant.slice(1, 3).map((e) => e.data.status)).toEqual(['processing', 'completed']);
  expect(forMerchant[4]!.data).toMatchObject({ disputeId, status: 'lost' });
  deliveredTo(forMerchant, hooks.merchant);

  // Its provider: the same events with its own deliveries; acting as the merchant (X-Entity-Id), the merchant's page.
  const forProvider = await settledEvents(a.provider!.apiKey, reference, MERCHANT_TYPES.length);
  expect(forProvider.map((e) => e.id)).toEqual(forMerchant.map((e) => e.id));
  deliveredTo(forProvider, hooks.provider!);
  const asMerchant = await details(a.provider!.apiKey, reference, { 'x-entity-id': a.merchant.id });
  expect(asMerchant.body.data.events).toEqual(forMerchant);

  // The customer's bank: its own three.
  const forBank = await settledEvents(a.bank.apiKey, reference, 3);
  expect(forBank.map((e) => e.type)).toEqual(['billing.request', 'refund.requested', 'dispute.updated']);
  expect(forBank.filter((e) => forMerchant.some((m) => m.id === e.id))).toEqual([]);
  deliveredTo(forBank, hooks.bank);

  // The ids are kept on the objects that caused them, in the transactions that emitted them.
  const all = new Set([...forMerchant, ...forBank].map((e) => e.id));
  const kept = [
    ...((await getItem<BillItem>(billKey(billingRequestId)))!.eventIds ?? []),
    ...((await getItem<RefundItem>(refundKey(refundId)))!.eventIds ?? []),
    ...((await getItem<DisputeItem>(disputeKey(disputeId)))!.eventIds ?? []),
  ];
  // billing.request and .response; refund.requested, .updated x2; dispute.created, .updated (bank) and .updated (merchant).
  expect(kept).toHaveLength(8);
  expect(new Set(kept)).toEqual(all);

  // Another merchant: not its transaction.
  const stranger = await t.participant('merchant');
  const refused = await details(stranger.apiKey, reference);
  expect(refused.status).toBe(404);
  expect(refused.body.message).toBe('Transaction not found');
});

it('a billing made before its events were kept shows none, and its page still answers', async () => {
  const a = await agreement(t, { receiver: rx });
  const billed = await bill(t, a.merchant, [a.agreementPhrase], 50);
  expect(billed.status).toBe(201);
  const { reference, billingRequestId } = billed.body[0] as { reference: string; billingRequestId: string };
  expect((await bankResponse(t, a.bank, billingRequestId, 'deny', null)).status).toBe(200);
  expect((await settledEvents(a.merchant.apiKey, reference, 1)).map((e) => e.type)).toEqual(['billing.response']);

  await db().send(new UpdateCommand({ TableName: table(), Key: billKey(billingRequestId), UpdateExpression: 'REMOVE eventIds' }));
  const r = await details(a.merchant.apiKey, reference);
  expect(r.status).toBe(200);
  expect(r.body.data).toMatchObject({ reference, status: 'declined', refunds: [], events: [] });
});
