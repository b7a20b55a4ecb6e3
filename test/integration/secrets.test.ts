/**
 * DESIGN 8.1, secrets: no secret in clear at rest (idempotency records of secret-bearing
 * responses are sealed, replays still return the secret) and keys with a checksum (a
 * malformed or made-up key costs no DynamoDB request; counted with the bench's SDK counter).
 */
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DdbCounter } from '../../bench/lib/counters';
import { checksum, withChecksum } from '../../functions/domain/api-keys';
import { randomToken } from '../../functions/domain/ids';
import { db } from '../../functions/platform/clients';
import { idempotencyPk } from '../../functions/http/idempotency';
import { getItem, putItem, table } from '../../functions/platform/table';
import { startTestApp, type ApiResult, type TestApp } from '../support/app';
import { startReceiver, type Receiver } from '../../local/receiver';

/** The contract's patterns (DESIGN 8.1), independent of the implementation's. */
const SECRET_PATTERNS = [/sk_(sandbox|live)_[A-Za-z0-9]{20,}/, /whsec_[A-Za-z0-9]{20,}/];

let t: TestApp;
let rx: Receiver;
let raw: DynamoDBClient;
const counter = new DdbCounter();

beforeAll(async () => {
  t = await startTestApp();
  rx = await startReceiver();
  raw = new DynamoDBClient({});
  counter.install(db());
});
afterAll(async () => {
  raw?.destroy();
  await rx?.close();
  await t?.stop();
});

type Call = { method: string; path: string; key: string; body?: unknown; headers?: Record<string, string> };

/**
 * Sends `call` with a fresh Idempotency-Key, then again with the same key and body: the
 * replay is the first answer, byte for byte, with `Idempotent-Replayed: true`.
 */
async function withReplay(call: Call, status: number): Promise<ApiResult> {
  const headers = { ...call.headers, 'idempotency-key': `secrets-${randomToken(12)}` };
  const first = await t.call(call.method, call.path, { key: call.key, body: call.body, headers });
  expect(first.status, JSON.stringify(first.body)).toBe(status);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const again = await t.call(call.method, call.path, { key: call.key, body: call.body, headers });
  expect(again.status).toBe(status);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(first.body);
  return first;
}

/** Every string an attribute value holds, recursively through maps, lists and sets (binary decoded as UTF-8). */
function* stringsOf(v: AttributeValue): Generator<string> {
  if (v.S !== undefined) yield v.S;
  else if (v.N !== undefined) yield v.N;
  else if (v.B !== undefined) yield Buffer.from(v.B).toString('utf8');
  else if (v.SS) yield* v.SS;
  else if (v.NS) yield* v.NS;
  else if (v.BS) for (const b of v.BS) yield Buffer.from(b).toString('utf8');
  else if (v.L) for (const x of v.L) yield* stringsOf(x);
  else if (v.M)
    for (const [k, x] of Object.entries(v.M)) {
      yield k;
      yield* stringsOf(x);
    }
}

/** Scans the WHOLE table, page by page (small pages on purpose); returns items and pages. */
async function scanTable(): Promise<{ items: Record<string, AttributeValue>[]; pages: number }> {
  const items: Record<string, AttributeValue>[] = [];
  let pages = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await raw.send(new ScanCommand({ TableName: table(), ExclusiveStartKey: start, Limit: 25, ConsistentRead: true }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
    pages++;
  } while (start);
  return { items, pages };
}

describe('no secret in clear at rest (DESIGN 8.1)', () => {
  const issued: string[] = [];

  it('a workload of keys, merchants, endpoints and rotations, each replayed, leaves no secret-shaped value in the table or the logs', async () => {
    // Every log line of the workload, at the most verbose level (the app runs in this process).
    const logLines: string[] = [];
    const saved = { level: process.env.LOG_LEVEL, log: console.log, error: console.error };
    process.env.LOG_LEVEL = 'DEBUG';
    console.log = (...args: unknown[]) => void logLines.push(args.map(String).join(' '));
    console.error = console.log;
    try {
      await workload();
    } finally {
      process.env.LOG_LEVEL = saved.level;
      console.log = saved.log;
      console.error = saved.error;
    }
    expect(logLines.length).toBeGreaterThan(50);
    expect(logLines.filter((l) => SECRET_PATTERNS.some((p) => p.test(l)))).toEqual([]);

    // Every issued secret matches the contract's patterns (so the scans would see it).
    expect(issued).toHaveLength(5 + 4 + 3 + 4 * 3);
    for (const s of issued)
      expect(
        SECRET_PATTERNS.some((p) => p.test(s)),
        s,
      ).toBe(true);

    const { items, pages } = await scanTable();
    expect(pages).toBeGreaterThan(1);
    const found: string[] = [];
    for (const item of items) {
      for (const [name, value] of Object.entries(item)) {
        for (const s of [name, ...stringsOf(value)]) {
          if (SECRET_PATTERNS.some((p) => p.test(s))) found.push(`${item.pk?.S} ${item.sk?.S} ${name}`);
        }
      }
    }
    expect(found).toEqual([]);
    // The replays came from sealed records, not from records that kept nothing.
    const idem = items.filter((i) => i.pk?.S?.startsWith('IDEM#'));
    const sealed = idem.filter((i) => i.response?.M?.sealed?.S);
    expect(sealed.length).toBe(4 + 4 + 1 + 4 * 3);
    for (const s of issued) expect(JSON.stringify(items)).not.toContain(s.slice(-20));
  });

  async function workload(): Promise<void> {
    const op = t.operatorKey;
    const suffix = randomToken(6).toLowerCase();
    const participants: Record<string, { id: string; apiKey: string }> = {};
    const kinds: [string, Record<string, unknown>][] = [
      ['bank', { type: 'bank' }],
      ['simulatedBank', { type: 'bank', simulated: true }],
      ['merchant', { type: 'merchant' }],
      ['provider', { type: 'provider' }],
    ];
    for (const [label, extra] of kinds) {
      const r = await withReplay(
        {
          method: 'POST',
          path: '/v1/operator/participants',
          key: op,
          body: { ...extra, name: `${label} ${suffix}`, email: `${label}-${suffix}@example.com` },
        },
        201,
      );
      participants[label] = { id: r.body.data.id, apiKey: r.body.data.apiKey };
      issued.push(r.body.data.apiKey);
    }
    const provider = participants.provider!;
    const owned = await t.call('POST', '/v1/operator/participants', {
      key: op,
      body: { type: 'merchant', name: `owned ${suffix}`, email: `owned-${suffix}@example.com`, providerId: provider.id },
    });
    expect(owned.status).toBe(201);
    issued.push(owned.body.data.apiKey);

    // A second key for every participant.
    for (const p of Object.values(participants)) {
      const r = await withReplay({ method: 'POST', path: `/v1/operator/participants/${p.id}/keys`, key: op }, 201);
      issued.push(r.body.data.apiKey);
    }

    // A provider creates merchants: one key per item.
    const batch = await withReplay(
      {
        method: 'POST',
        path: '/v1/provider/merchants',
        key: provider.apiKey,
        body: { merchants: [1, 2, 3].map((i) => ({ name: `Shop ${i} ${suffix}`, email: `shop${i}-${suffix}@example.com` })) },
      },
      201,
    );
    expect(batch.body.data.merchants).toHaveLength(3);
    for (const m of batch.body.data.merchants) issued.push(m.apiKey);
    const providerMerchant = batch.body.data.merchants[0].id as string;

    // Webhook endpoints of every kind (a provider also for one of its merchants), rotated twice
    // (the second during the first's overlap), and a delivered test event.
    const callers = [
      { key: participants.bank!.apiKey },
      { key: participants.merchant!.apiKey },
      { key: provider.apiKey },
      { key: provider.apiKey, headers: { 'x-entity-id': providerMerchant } },
    ];
    for (const caller of callers) {
      const { url, path } = rx.endpointUrl('secrets');
      const created = await withReplay({ method: 'POST', path: '/v1/webhooks/endpoints', ...caller, body: { url } }, 201);
      const id = created.body.data.id as string;
      issued.push(created.body.data.secret);
      for (let i = 0; i < 2; i++) {
        const rotated = await withReplay({ method: 'POST', path: `/v1/webhooks/endpoints/${id}/rotate-secret`, ...caller }, 200);
        expect(rotated.body.data.secret).not.toBe(created.body.data.secret);
        issued.push(rotated.body.data.secret);
      }
      const sent = await t.call('POST', `/v1/webhooks/endpoints/${id}/test`, {
        ...caller,
        headers: { ...caller.headers, 'idempotency-key': randomToken(10) },
      });
      expect(sent.status).toBe(202);
      await rx.waitFor(path, (reqs) => reqs.length >= 1);
    }
    await t.app.settle();
  }

  it('a sealed response opens only in its own record: moved to another, it is never replayed', async () => {
    const body = { type: 'bank', name: `moved ${randomToken(4)}`, email: `moved-${randomToken(6).toLowerCase()}@example.com` };
    const route = 'POST /v1/operator/participants';
    const idemKey = `moved-${randomToken(10)}`;
    const first = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body, headers: { 'idempotency-key': idemKey } });
    expect(first.status).toBe(201);
    const record = await getItem<{ requestHash: string; response: { statusCode: number; sealed?: string; body?: string } }>({
      pk: idempotencyPk('operator', route, idemKey),
      sk: 'IDEM',
    });
    expect(record?.response.sealed).toEqual(expect.any(String));
    expect(record?.response.body).toBeUndefined();
    // The same sealed answer under another Idempotency-Key of the same route and body.
    const otherKey = `moved-${randomToken(10)}`;
    await putItem({
      pk: idempotencyPk('operator', route, otherKey),
      sk: 'IDEM',
      status: 'completed',
      requestHash: record!.requestHash,
      lockedUntil: 0,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      response: record!.response,
    });
    const moved = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body, headers: { 'idempotency-key': otherKey } });
    expect(moved.status).toBe(500);
    expect(moved.body).toMatchObject({ statusCode: 500, success: false, message: 'Internal server error' });
    expect(JSON.stringify(moved.body)).not.toContain(first.body.data.apiKey);
    // In its own record it still replays.
    const again = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body, headers: { 'idempotency-key': idemKey } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('keys carry a checksum (DESIGN 8.1)', () => {
  /** Sends one request with `key` and counts the DynamoDB requests it costs. */
  async function measured(key: string) {
    await t.app.settle();
    const { value, counts } = await counter.measure(() => t.call('GET', '/v1/balance/details', { key }));
    return { r: value, ddb: counts.requests };
  }

  it('issues keys with a valid checksum', async () => {
    const m = await t.participant('merchant');
    expect(m.apiKey).toMatch(/^sk_sandbox_[0-9A-Za-z]{46}$/);
    expect(withChecksum(m.apiKey.slice(0, -6))).toBe(m.apiKey);
    const ok = await measured(m.apiKey);
    expect(ok.r.status).toBe(200);
    expect(ok.ddb).toBeGreaterThan(0);
  });

  it('a malformed key is 401 Invalid API key without any DynamoDB request', async () => {
    for (const key of ['sk_sandbox_short', `sk_sandbox_${'x'.repeat(30)}!!`, 'not-a-key', `sk_sandbox_${'a'.repeat(250)}`]) {
      const { r, ddb } = await measured(key);
      expect(r.status, key).toBe(401);
      expect(r.body).toMatchObject({ statusCode: 401, success: false, message: 'Invalid API key' });
      expect(ddb, key).toBe(0);
    }
  });

  it('a well-formed key with a wrong checksum is 401 Invalid API key without any DynamoDB request', async () => {
    const m = await t.participant('bank');
    // A real key with its last check character changed, and a random body with a made-up check.
    const last = m.apiKey.at(-1) === 'A' ? 'B' : 'A';
    const random = `sk_sandbox_${randomToken(40)}`;
    const wrongCheck = checksum(random) === '000000' ? '000001' : '000000';
    for (const key of [m.apiKey.slice(0, -1) + last, random + wrongCheck]) {
      expect(withChecksum(key.slice(0, -6))).not.toBe(key);
      const { r, ddb } = await measured(key);
      expect(r.status).toBe(401);
      expect(r.body.message).toBe('Invalid API key');
      expect(ddb).toBe(0);
    }
  });

  it('a key with a valid checksum that does not exist is looked up, then 401 Invalid API key', async () => {
    const { r, ddb } = await measured(withChecksum(`sk_sandbox_${randomToken(40)}`));
    expect(r.status).toBe(401);
    expect(r.body.message).toBe('Invalid API key');
    expect(ddb).toBeGreaterThan(0);
  });

  it("the other stage's prefix keeps its own message, before any checksum or lookup", async () => {
    for (const key of ['sk_live_abc', withChecksum(`sk_live_${randomToken(40)}`)]) {
      const { r, ddb } = await measured(key);
      expect(r.status).toBe(401);
      expect(r.body.message).toBe('API key is not valid for the sandbox environment');
      expect(ddb).toBe(0);
    }
  });

  it('a user-set operator key of any shape still works: compared by hash before any checksum rule', async () => {
    const saved = process.env.OPERATOR_API_KEY;
    // Shaped like a sandbox key, with a wrong checksum.
    const custom = `sk_sandbox_${randomToken(40)}000000`;
    expect(withChecksum(custom.slice(0, -6))).not.toBe(custom);
    process.env.OPERATOR_API_KEY = custom;
    try {
      const r = await t.call('POST', '/v1/operator/participants', {
        key: custom,
        body: { type: 'bank', name: 'By custom operator key', email: `custom-${randomToken(6).toLowerCase()}@example.com` },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect((await t.call('POST', '/v1/operator/participants', { key: 'my operator key' })).status).toBe(401);
    } finally {
      process.env.OPERATOR_API_KEY = saved;
    }
  });
});
