/**
 * The event pipeline's pure rules (DESIGN 9.6): the body every delivery of an event sends,
 * the one delivery id of an (event, endpoint) pair, the receipt shards, the wait a retry
 * may ride as a delayed message, and the stream poller's event filter (Lambda's patterns).
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_STREAM } from '../../functions/platform/definitions';
import { maxQueueDelaySeconds, nominalSchedule, SQS_MAX_DELAY_SECONDS } from '../../functions/webhooks/backoff';
import {
  deliveryIdFor,
  eventIdOfDelivery,
  firstMessage,
  newDelivery,
  parseMessage,
  unclaimedDelivery,
} from '../../functions/webhooks/delivery-store';
import { eventBody } from '../../functions/webhooks/event-body';
import { RECEIPT_SHARDS, receiptKey, receiptShard } from '../../functions/events/receipts';
import { newId } from '../../functions/domain/ids';
import { matchesPattern, recordsByLane } from '../../local/streams';
import { recordEventIds } from '../../functions/events/outbox';
import { fanOut } from '../../functions/events/fanout';

const ENVELOPE = { apiVersion: '2026-11-01', livemode: false };

describe('the body of an event (built at delivery time)', () => {
  it('is {id, type, createdAt, apiVersion, livemode, data}, the same bytes whatever order the stored map comes back in', () => {
    const a = eventBody(
      {
        id: 'evt_1',
        type: 'billing.response',
        createdAt: '2026-11-01T00:00:00.000Z',
        data: { b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } },
      },
      ENVELOPE,
    );
    const b = eventBody(
      {
        id: 'evt_1',
        type: 'billing.response',
        createdAt: '2026-11-01T00:00:00.000Z',
        data: { a: { c: null, d: [2, { x: 0, y: 1 }] }, b: 1 },
      },
      ENVELOPE,
    );
    expect(a).toBe(b);
    expect(a).toBe(
      '{"id":"evt_1","type":"billing.response","createdAt":"2026-11-01T00:00:00.000Z","apiVersion":"2026-11-01","livemode":false,"data":{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}}',
    );
    expect(Object.keys(JSON.parse(a))).toEqual(['id', 'type', 'createdAt', 'apiVersion', 'livemode', 'data']);
  });

  it('keeps amounts, strings and lists as they are', () => {
    const body = eventBody(
      {
        id: 'evt_2',
        type: 't',
        createdAt: 'c',
        data: { amount: 1500.5, currency: 'NGN', allowedDecisions: ['deny', 'approve_once'] },
      },
      ENVELOPE,
    );
    expect(JSON.parse(body).data).toEqual({ amount: 1500.5, currency: 'NGN', allowedDecisions: ['deny', 'approve_once'] });
  });
});

describe('the delivery of an event to an endpoint', () => {
  it('has one id per pair, the same every time, different for any other pair', () => {
    const e = newId('evt');
    const p = newId('whe');
    const q = newId('whe');
    expect(deliveryIdFor(e, p)).toBe(deliveryIdFor(e, p));
    expect(deliveryIdFor(e, p)).not.toBe(deliveryIdFor(e, q));
    expect(deliveryIdFor(newId('evt'), p)).not.toBe(deliveryIdFor(e, p));
    expect(deliveryIdFor(e, p)).toBe(`dlv_${e.slice(4)}${p.slice(4)}`);
  });

  it('is shaped like every delivery id (dlv_ + base62, at most 64 characters), whatever the ids it is made of', () => {
    for (const [e, p] of [
      [newId('evt'), newId('whe')],
      ['evt_x', 'whe_y'],
      [`evt_${'a'.repeat(60)}`, `whe_${'b'.repeat(60)}`],
      ['weird id', 'another one'],
    ] as const) {
      const id = deliveryIdFor(e, p);
      expect(id).toMatch(/^dlv_[0-9A-Za-z]+$/);
      expect(id.length).toBeLessThanOrEqual(64);
    }
    expect(deliveryIdFor('weird id', 'a')).not.toBe(deliveryIdFor('weird id', 'b'));
  });

  it('sorts with its event: deliveries of a later event have larger ids', async () => {
    const p = newId('whe');
    const first = newId('evt');
    await new Promise((r) => setTimeout(r, 2));
    const later = newId('evt');
    expect(deliveryIdFor(later, p) > deliveryIdFor(first, p)).toBe(true);
  });
});

describe('a delivery before its first claim (no record yet)', () => {
  const ev = newId('evt');
  const ep = newId('whe');
  const id = deliveryIdFor(ev, ep);
  it('names its event: the id is read back into the event id, and nothing else is', () => {
    expect(eventIdOfDelivery(id)).toBe(ev);
    expect(eventIdOfDelivery(deliveryIdFor('evt_other-shape', ep))).toBeUndefined();
    expect(eventIdOfDelivery('dlv_short')).toBeUndefined();
  });
  it('is shown from its receipt: pending, no attempt, made when the receipt says, to the endpoint its id names', () => {
    const d = unclaimedDelivery({
      id,
      eventId: ev,
      eventType: 'billing.response',
      ownerId: 'mer_1',
      createdAt: '2026-11-28T10:00:00.000Z',
    });
    expect(d).toMatchObject({
      id,
      eventId: ev,
      eventType: 'billing.response',
      endpointId: ep,
      ownerId: 'mer_1',
      status: 'pending',
      attempts: 0,
      seq: 1,
      createdAt: '2026-11-28T10:00:00.000Z',
      unclaimed: true,
    });
    // Not a delivery of that event: nothing.
    expect(
      unclaimedDelivery({ id, eventId: newId('evt'), eventType: 'x', ownerId: 'mer_1', createdAt: '2026-11-28T10:00:00.000Z' }),
    ).toBeUndefined();
  });
  it('has a first message that carries what its record starts with, through the queue', () => {
    const d = newDelivery({
      eventId: ev,
      eventType: 'billing.request',
      endpointId: ep,
      ownerId: 'bnk_1',
      createdAt: '2026-11-28T10:00:00.000Z',
      maxAttempts: 12,
    });
    const m = firstMessage(d);
    expect(parseMessage(JSON.stringify(m))).toEqual({
      deliveryId: id,
      eventId: ev,
      endpointId: ep,
      ownerId: 'bnk_1',
      seq: 1,
      recoveryAt: null,
      create: { eventType: 'billing.request', createdAt: '2026-11-28T10:00:00.000Z', maxAttempts: 12 },
    });
    // A malformed `create` is left out (the claim then makes no record).
    expect(parseMessage(JSON.stringify({ ...m, create: { eventType: 'x' } }))).not.toHaveProperty('create');
  });
});

describe('receipts', () => {
  it(`spread a participant's events over ${RECEIPT_SHARDS} partitions, each event always in the same one`, () => {
    const shards = new Map<number, number>();
    for (let i = 0; i < 4000; i++) {
      const s = receiptShard(newId('evt'));
      shards.set(s, (shards.get(s) ?? 0) + 1);
    }
    expect([...shards.keys()].sort()).toEqual(Array.from({ length: RECEIPT_SHARDS }, (_, i) => i));
    // 500 events/s for one bank: about 62 per shard and second, none far above (DESIGN 9.6: < 100 WCU/s).
    for (const n of shards.values()) expect(n / 4000).toBeLessThan(1.4 / RECEIPT_SHARDS);
    const ev = { id: newId('evt'), createdAt: '2026-11-01T00:00:00.000Z' };
    expect(receiptKey('ban_1', ev)).toEqual(receiptKey('ban_1', ev));
    expect(receiptKey('ban_1', ev)).toEqual({ pk: `EVR#ban_1#${receiptShard(ev.id)}`, sk: `2026-11-01T00:00:00.000Z#${ev.id}` });
  });
});

describe('retry waits', () => {
  afterEach(() => {
    delete process.env.WEBHOOK_MAX_QUEUE_DELAY_SECONDS;
  });

  it('ride a delayed message up to SQS’s 15 minutes (a setting may lower it), longer ones the due index', () => {
    expect(SQS_MAX_DELAY_SECONDS).toBe(900);
    expect(maxQueueDelaySeconds()).toBe(900);
    process.env.WEBHOOK_MAX_QUEUE_DELAY_SECONDS = '3';
    expect(maxQueueDelaySeconds()).toBe(3);
    process.env.WEBHOOK_MAX_QUEUE_DELAY_SECONDS = '5000';
    expect(maxQueueDelaySeconds()).toBe(900);
    process.env.WEBHOOK_MAX_QUEUE_DELAY_SECONDS = '';
    expect(maxQueueDelaySeconds()).toBe(900);
  });

  it('with the deployed defaults (13 attempts, base 60 s) span over 24 h: the first four ride messages, the rest the due index', () => {
    const waits = nominalSchedule(13, 60);
    expect(waits.reduce((s, w) => s + w, 0)).toBeGreaterThan(24 * 3600);
    expect(waits.filter((w) => w <= 900)).toEqual([60, 120, 240, 480]);
  });
});

describe("the stream poller's filter (Lambda event filter patterns)", () => {
  const record = (pk: string, image: Record<string, unknown> | undefined, eventName = 'INSERT') => ({
    eventName,
    dynamodb: { Keys: { pk: { S: pk }, sk: { S: 'EVT' } }, ...(image ? { NewImage: { pk: { S: pk }, ...image } } : {}) },
  });

  const f = { any: EVENT_STREAM.filters };
  const passes = (r: unknown) => f.any.some((p) => matchesPattern(p, r));

  it('passes inserted event items that fan out, and nothing else', () => {
    expect(passes(record('EVT#evt_1', { type: { S: 'billing.response' } }))).toBe(true);
    expect(passes(record('EVT#evt_1', { type: { S: 'billing.response' } }, 'MODIFY'))).toBe(false);
    expect(passes(record('EVT#evt_1', undefined, 'REMOVE'))).toBe(false);
    expect(passes(record('BILL#b_1', { type: { S: 'x' } }))).toBe(false);
    expect(passes(record('WHDL#dlv_1', {}))).toBe(false);
    // A webhook.test event names its endpoint: its own transaction delivered it.
    expect(passes(record('EVT#evt_2', { endpointId: { S: 'whe_1' } }))).toBe(false);
    // A carried event's item is fanned out from the record of the item that carries it.
    expect(passes(record('EVT#evt_3', { type: { S: 'billing.request' }, carriedBy: { S: 'BILL#breq_1' } }))).toBe(false);
  });

  it('passes every write of an item that carries an event (outbox carry), and none without the marker', () => {
    const emits = { emits: { M: { id: { S: 'evt_1' }, type: { S: 'billing.request' } } } };
    expect(passes(record('BILL#breq_1', { status: { S: 'pending' }, ...emits }))).toBe(true);
    expect(passes(record('BILL#breq_1', { status: { S: 'succeeded' }, ...emits }, 'MODIFY'))).toBe(true);
    // A later write that emits nothing removed the marker: its record is not passed.
    expect(passes(record('BILL#breq_1', { status: { S: 'succeeded' } }, 'MODIFY'))).toBe(false);
    expect(passes(record('BILL#breq_1', undefined, 'REMOVE'))).toBe(false);
    expect(passes(record('BILL#breq_1', { emits: { M: {} } }, 'MODIFY'))).toBe(false);
  });

  it("hands the function what Lambda would: passed records only, a key's records in one lane; no record passed, no invocation", () => {
    const source = { filters: [...EVENT_STREAM.filters], parallelizationFactor: EVENT_STREAM.parallelizationFactor };
    const emits = { emits: { M: { id: { S: 'evt_1' } } } };
    const rec = (...a: Parameters<typeof record>) => record(...a) as DynamoDBRecord;
    // A bill's delivery claims and receipts: nothing for the consumer.
    const none = recordsByLane([rec('WHDL#dlv_1', {}, 'MODIFY'), rec('EVR#p#0', {}), rec('BILL#breq_1', {}, 'MODIFY')], source);
    expect(none.flat()).toEqual([]);
    const lanes = recordsByLane(
      [
        rec('BILL#breq_1', emits),
        rec('WHDL#dlv_1', {}),
        rec('BILL#breq_1', emits, 'MODIFY'),
        rec('EVT#evt_9', { type: { S: 'refund.requested' } }),
      ],
      source,
    );
    expect(lanes).toHaveLength(EVENT_STREAM.parallelizationFactor);
    expect(lanes.flat()).toHaveLength(3);
    const billLane = lanes.find((l) => l.some((r) => r.dynamodb?.Keys?.pk?.S === 'BILL#breq_1'))!;
    expect(billLane.filter((r) => r.dynamodb?.Keys?.pk?.S === 'BILL#breq_1').map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY']);
  });

  it('a carried event no deriver makes fails its record (Lambda retries it, then the failure queue), and only its record', async () => {
    const carried = (pk: string, type: string, seq: string) => {
      const emits = { M: { id: { S: `evt_${seq}` }, type: { S: type }, at: { S: new Date().toISOString() }, exp: { N: '9999999999' } } };
      const r = record(pk, { emits }) as DynamoDBRecord;
      return { ...r, dynamodb: { ...r.dynamodb, SequenceNumber: seq } };
    };
    // An expired marker is never fanned out: no deriver is asked, nothing fails.
    const expired = carried('BILL#breq_3', 'billing.request', '3');
    (expired.dynamodb!.NewImage as Record<string, any>).emits.M.exp = { N: '1' };
    const out = await fanOut({ Records: [carried('BILL#breq_1', 'schedule.created', '1'), expired] }, {});
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: '1' }]);
  });

  it('matches values, prefixes, exists and anything-but like Lambda', () => {
    expect(matchesPattern({ a: ['x', 'y'] }, { a: 'y' })).toBe(true);
    expect(matchesPattern({ a: ['x'] }, { a: 'z' })).toBe(false);
    expect(matchesPattern({ a: [{ prefix: 'E' }] }, { a: 'EVT' })).toBe(true);
    expect(matchesPattern({ a: [{ exists: true }] }, {})).toBe(false);
    expect(matchesPattern({ a: [{ exists: false }] }, {})).toBe(true);
    expect(matchesPattern({ a: [{ 'anything-but': ['x'] }] }, { a: 'y' })).toBe(true);
    expect(matchesPattern({ a: [{ 'anything-but': ['x'] }] }, { a: 'x' })).toBe(false);
    expect(matchesPattern({ a: { b: [1] } }, { a: { b: 1 } })).toBe(true);
    expect(matchesPattern({ a: { b: [1] } }, { a: {} })).toBe(false);
  });
});

describe("an object's event ids, kept in the transaction that emits them (outbox recordOn)", () => {
  const values = { ':outboxNoEvents': [], ':outboxEventIds': ['evt_a', 'evt_b'] };
  const assign = 'eventIds = list_append(if_not_exists(eventIds, :outboxNoEvents), :outboxEventIds)';
  const update = (UpdateExpression: string) => ({
    Update: { TableName: 't', Key: { pk: 'p', sk: 's' }, UpdateExpression, ExpressionAttributeValues: { ':x': 1 } },
  });

  it("a Put's item gets them after any it already lists", () => {
    const put = { Put: { TableName: 't', Item: { pk: 'p', sk: 's', eventIds: ['evt_0'] } } };
    expect(recordEventIds(put, ['evt_a', 'evt_b'])).toEqual({
      Put: { TableName: 't', Item: { pk: 'p', sk: 's', eventIds: ['evt_0', 'evt_a', 'evt_b'] } },
    });
    expect(put.Put.Item.eventIds).toEqual(['evt_0']); // the caller's item is left as it was (a retry builds on it again)
    expect(recordEventIds({ Put: { TableName: 't', Item: { pk: 'p' } } }, ['evt_a']).Put!.Item).toEqual({ pk: 'p', eventIds: ['evt_a'] });
  });

  it("an Update's expression gets one more assignment in its SET clause, or a SET clause of its own", () => {
    const cases: [string, string][] = [
      ['SET a = :x REMOVE duePk', `SET ${assign}, a = :x REMOVE duePk`],
      ['ADD refundedAmount :x SET updatedAt = :x', `ADD refundedAmount :x SET ${assign}, updatedAt = :x`],
      ['ADD refundReserved :x', `SET ${assign} ADD refundReserved :x`],
    ];
    for (const [before, after] of cases) {
      const u = recordEventIds(update(before), ['evt_a', 'evt_b']).Update!;
      expect(u.UpdateExpression).toBe(after);
      expect(u.ExpressionAttributeValues).toEqual({ ':x': 1, ...values });
    }
  });

  it('refuses any other kind of item', () => {
    expect(() =>
      recordEventIds({ ConditionCheck: { TableName: 't', Key: {}, ConditionExpression: 'attribute_exists(pk)' } }, ['evt_a']),
    ).toThrow('recordOn: the item keeping the event ids must be a Put or an Update');
  });
});
