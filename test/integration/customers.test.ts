import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../functions/platform/clients';
import { clientRefGuardKey, customerKey, referenceGuardKey } from '../../functions/customers/store';
import { getItem, table } from '../../functions/platform/table';
import { startTestApp, type TestApp } from '../support/app';

let t: TestApp;
let bank: { id: string; apiKey: string };
let otherBank: { id: string; apiKey: string };

beforeAll(async () => {
  t = await startTestApp();
  bank = await t.participant('bank');
  otherBank = await t.participant('bank');
});
afterAll(async () => t?.stop());

let seq = 0;
/** A valid record with unique clientRef, reference and email. */
function customer(over: Record<string, unknown> = {}) {
  seq++;
  const tag = `${Date.now().toString(36)}${seq}`;
  return {
    clientRef: `CR-${tag}`,
    firstname: 'Ada',
    lastname: 'Obi',
    email: `ada.${tag}@example.com`,
    country: 'NG',
    accountNumber: '0123456789',
    reference: `REF-${tag}`,
    ...over,
  };
}

const post = (key: string, body: unknown, headers?: Record<string, string>) => t.call('POST', '/v1/bank/customers', { key, body, headers });

/** Every item of the test table whose pk starts with one of the prefixes. */
async function itemsWithPrefix(...prefixes: string[]) {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: table(), ExclusiveStartKey: start, ConsistentRead: true }));
    for (const it of page.Items ?? []) if (prefixes.some((p) => String(it.pk).startsWith(p))) out.push(it);
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

describe('POST /v1/bank/customers: per-record outcomes', () => {
  it('creates valid records and reports in-batch, existing and invalid failures with exact counts and ids', async () => {
    const earlier = customer();
    const first = await post(bank.apiKey, { customers: [earlier] });
    expect(first.status).toBe(201);
    expect(first.body.data.summary).toEqual({ total: 1, successful: 1, failed: 0, duplicates: 0, invalidData: 0 });

    const a = customer();
    const b = customer();
    const records = [
      a, // 0 created
      { ...customer(), clientRef: a.clientRef }, // 1 duplicate clientRef in batch
      { ...customer(), reference: a.reference }, // 2 duplicate reference in batch
      { ...customer(), clientRef: earlier.clientRef }, // 3 duplicate clientRef of an earlier batch
      { ...customer(), reference: earlier.reference }, // 4 duplicate reference of an earlier batch
      customer({ email: 'not-an-email' }), // 5 invalid email
      customer({ country: 'XX' }), // 6 unassigned country
      customer({ accountNumber: '12-34-56' }), // 7 non-digit account number
      (({ lastname: _l, ...rest }) => rest)(customer()), // 8 missing lastname
      'not an object', // 9 not a record
      b, // 10 created
      customer({ country: 'UK' }), // 11 reserved, not assigned
    ];
    const r = await post(bank.apiKey, { customers: records });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ statusCode: 201, success: true });
    expect(r.body.message).toMatch(/reflect shortly/);
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(['batchId', 'data', 'status', 'summary']);
    expect(d.batchId).toMatch(/^bat_/);
    expect(d.status).toBe('COMPLETED');
    expect(d.summary).toEqual({ total: 12, successful: 2, failed: 10, duplicates: 4, invalidData: 6 });
    expect(d.data.createdCount).toBe(2);
    expect(d.data.customerIds).toHaveLength(2);
    for (const id of d.data.customerIds) expect(id).toMatch(/^cus_/);

    // The created customers are the records at index 0 and 10, in that order.
    const [idA, idB] = d.data.customerIds;
    expect(await getItem(customerKey(idA))).toMatchObject({ id: idA, bankId: bank.id, clientRef: a.clientRef, reference: a.reference });
    expect(await getItem(customerKey(idB))).toMatchObject({ id: idB, bankId: bank.id, clientRef: b.clientRef });
    expect(await getItem(clientRefGuardKey(bank.id, a.clientRef))).toMatchObject({ customerId: idA });
    expect(await getItem(referenceGuardKey(bank.id, b.reference))).toMatchObject({ customerId: idB });

    const g = await t.call('GET', `/v1/bank/customers/batches/${d.batchId}`, { key: bank.apiKey });
    expect(g.status).toBe(200);
    expect(g.body.data).toMatchObject({ batchId: d.batchId, status: 'COMPLETED', summary: d.summary, data: d.data });
    const failures = g.body.data.failures as { index: number; clientRef: string | null; reason: string }[];
    expect(failures.map((f) => f.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 11]);
    const byIndex = new Map(failures.map((f) => [f.index, f]));
    expect(byIndex.get(1)).toEqual({
      index: 1,
      clientRef: a.clientRef,
      reason: 'Duplicate clientRef: same as the record at index 0 of this batch',
    });
    expect(byIndex.get(2)!.reason).toBe('Duplicate reference: same as the record at index 0 of this batch');
    expect(byIndex.get(3)).toEqual({
      index: 3,
      clientRef: earlier.clientRef,
      reason: 'Duplicate clientRef: the bank already has a customer with this clientRef',
    });
    expect(byIndex.get(4)!.reason).toBe('Duplicate reference: the bank already has a customer with this reference');
    expect(byIndex.get(5)!.reason).toBe('Invalid email: must be a valid email address');
    expect(byIndex.get(6)!.reason).toBe('Invalid country: must be an assigned ISO 3166-1 alpha-2 country code');
    expect(byIndex.get(7)!.reason).toBe('Invalid accountNumber: must be 6 to 20 digits');
    expect(byIndex.get(8)!.reason).toBe('Missing required field: lastname');
    expect(byIndex.get(9)).toEqual({ index: 9, clientRef: null, reason: 'Record must be a JSON object' });
    expect(byIndex.get(11)!.reason).toMatch(/^Invalid country/);
  });

  it('treats the same clientRef at another bank as a different customer', async () => {
    const c = customer();
    expect((await post(bank.apiKey, { customers: [c] })).body.data.summary.successful).toBe(1);
    const r = await post(otherBank.apiKey, { customers: [c] });
    expect(r.body.data.summary).toEqual({ total: 1, successful: 1, failed: 0, duplicates: 0, invalidData: 0 });
  });

  it('takes a 500-record batch and creates every record', async () => {
    const records = Array.from({ length: 500 }, () => customer());
    const started = Date.now();
    const r = await post(bank.apiKey, { customers: records });
    expect(r.status).toBe(201);
    expect(r.body.data.summary).toEqual({ total: 500, successful: 500, failed: 0, duplicates: 0, invalidData: 0 });
    expect(r.body.data.data.customerIds).toHaveLength(500);
    expect(new Set(r.body.data.data.customerIds).size).toBe(500);
    expect(Date.now() - started).toBeLessThan(30_000);
    // The same file again: every record is a duplicate of an existing customer.
    const again = await post(bank.apiKey, { customers: records });
    expect(again.body.data.summary).toEqual({ total: 500, successful: 0, failed: 500, duplicates: 500, invalidData: 0 });
    expect(again.body.data.data).toEqual({ createdCount: 0, customerIds: [] });
    const g = await t.call('GET', `/v1/bank/customers/batches/${again.body.data.batchId}`, { key: bank.apiKey });
    expect(g.body.data.failures).toHaveLength(500);
    expect(g.body.data.failures[499]).toEqual({
      index: 499,
      clientRef: records[499]!.clientRef,
      reason: 'Duplicate clientRef: the bank already has a customer with this clientRef',
    });
  });

  it('takes exactly 1,000 records (the enforced maximum)', async () => {
    const r = await post(bank.apiKey, { customers: Array.from({ length: 1000 }, () => customer()) });
    expect(r.status).toBe(201);
    expect(r.body.data.summary).toEqual({ total: 1000, successful: 1000, failed: 0, duplicates: 0, invalidData: 0 });
  });

  it('creates a clientRef once when concurrent batches carry it', async () => {
    const shared = customer();
    const batches = Array.from({ length: 4 }, (_, i) => [
      ...Array.from({ length: 40 }, () => customer()),
      // Same clientRef everywhere; different references, so only the clientRef guard decides.
      { ...shared, reference: `${shared.reference}-${i}` },
    ]);
    const results = await Promise.all(batches.map((customers) => post(bank.apiKey, { customers })));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const created = results.reduce((n, r) => n + r.body.data.summary.successful, 0);
    const dups = results.reduce((n, r) => n + r.body.data.summary.duplicates, 0);
    expect(created).toBe(4 * 40 + 1);
    expect(dups).toBe(3);
    const customers = (await itemsWithPrefix('CUS#')).filter((c) => c.clientRef === shared.clientRef && c.bankId === bank.id);
    expect(customers).toHaveLength(1);
  });

  it('creates a reference once when concurrent batches carry it under different clientRefs', async () => {
    const ref = `SHARED-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 3 }, () => post(bank.apiKey, { customers: [customer({ reference: ref })] })));
    expect(results.map((r) => r.body.data.summary.successful).sort()).toEqual([0, 0, 1]);
    const customers = (await itemsWithPrefix('CUS#')).filter((c) => c.reference === ref);
    expect(customers).toHaveLength(1);
  });
});

describe('POST /v1/bank/customers: whole-request errors write nothing', () => {
  const cases: [string, unknown, string | RegExp | undefined][] = [
    ['an empty customers array', { customers: [] }, undefined],
    ['no customers field', {}, undefined],
    ['customers that is not an array', { customers: { a: 1 } }, undefined],
    ['a bare array', [customer()], undefined],
    ['an unknown top-level field', { customers: [customer()], extra: true }, /Unrecognized/],
    ['1,001 records', { customers: Array.from({ length: 1001 }, () => customer()) }, 'at most 1000 customers per request'],
  ];
  for (const [name, body, detail] of cases) {
    it(`rejects ${name} with 400 Invalid request parameters`, async () => {
      const before = await itemsWithPrefix('CUS#', 'BATCH#', 'UNIQ#CREF#', 'UNIQ#REF#');
      const r = await post(bank.apiKey, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        statusCode: 400,
        success: false,
        message: 'Invalid request parameters',
        code: 'invalid_request_parameters',
      });
      if (detail) expect(r.body.errors.map((e: { message: string }) => e.message).join(' ')).toMatch(detail);
      const after = await itemsWithPrefix('CUS#', 'BATCH#', 'UNIQ#CREF#', 'UNIQ#REF#');
      expect(after.length).toBe(before.length);
    });
  }

  it('states the maximum in the errors entry for 1,001 records', async () => {
    const r = await post(bank.apiKey, { customers: Array.from({ length: 1001 }, () => customer()) });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ path: 'customers', message: 'at most 1000 customers per request' }]);
  });

  it('rejects malformed JSON with 400 Invalid JSON body', async () => {
    const r = await t.call('POST', '/v1/bank/customers', { key: bank.apiKey, rawBody: '{"customers": [' });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid JSON body');
  });

  it('refuses merchants and providers', async () => {
    const m = await t.participant('merchant');
    const r = await post(m.apiKey, { customers: [customer()] });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('Forbidden for this participant type');
  });
});

describe('GET /v1/bank/customers/batches/{batchId}', () => {
  it("is 404 Batch not found for an unknown batch and for another bank's batch", async () => {
    const r = await post(bank.apiKey, { customers: [customer()] });
    const batchId = r.body.data.batchId;
    const own = await t.call('GET', `/v1/bank/customers/batches/${batchId}`, { key: bank.apiKey });
    expect(own.status).toBe(200);
    expect(own.body.data.failures).toEqual([]);
    const other = await t.call('GET', `/v1/bank/customers/batches/${batchId}`, { key: otherBank.apiKey });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ statusCode: 404, success: false, message: 'Batch not found' });
    const unknown = await t.call('GET', '/v1/bank/customers/batches/bat_nope', { key: bank.apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Batch not found');
  });

  it('keeps every failure entry of a large all-invalid batch (stored in several items)', async () => {
    const records = Array.from({ length: 450 }, (_, i) => customer({ accountNumber: `x${i}` }));
    const r = await post(bank.apiKey, { customers: records });
    expect(r.body.data.summary).toEqual({ total: 450, successful: 0, failed: 450, duplicates: 0, invalidData: 450 });
    const g = await t.call('GET', `/v1/bank/customers/batches/${r.body.data.batchId}`, { key: bank.apiKey });
    expect(g.body.data.failures.map((f: { index: number }) => f.index)).toEqual(records.map((_, i) => i));
    expect(g.body.data.failures[449]).toEqual({
      index: 449,
      clientRef: records[449]!.clientRef,
      reason: 'Invalid accountNumber: must be 6 to 20 digits',
    });
  });
});

describe('idempotency of a batch', () => {
  it('replays the first result for the same Idempotency-Key and body instead of reporting duplicates', async () => {
    const body = { customers: [customer(), customer()] };
    const key = `batch-${Date.now()}`;
    const first = await post(bank.apiKey, body, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const again = await post(bank.apiKey, body, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
  });
});
