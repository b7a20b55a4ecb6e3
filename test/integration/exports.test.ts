/**
 * Exports (DESIGN 8.8): POST /v1/exports -> 202; the jobs worker writes the CSV to
 * S3 (fauxqs locally) through a multipart upload; GET /v1/exports/{id} -> ready, rowCount and
 * a pre-signed URL whose CSV (header row first) parses back to the same rows and totals.
 * (The 100,000-row export with its memory is test/reliability/export-100k.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { csvRecords, parseCsv } from '../support/csv';
import { fixtureBill, lagos, until } from '../support/money-fixtures';

let t: TestApp;

withAppAndReceiver((app) => {
  t = app;
});

const create = (key: string, body: unknown, headers?: Record<string, string>) => t.call('POST', '/v1/exports', { key, body, headers });
const read = (key: string, id: string, headers?: Record<string, string>) =>
  t.call('GET', `/v1/exports/${encodeURIComponent(id)}`, { key, headers });

/** Runs the tick until the export is no longer pending; returns its read. */
async function ready(key: string, id: string) {
  return until(async () => {
    await t.app.tick(new Date());
    await t.app.settle();
    const r = await read(key, id);
    return r.body.data?.status !== 'pending' ? r : undefined;
  }, 30_000);
}

async function setup() {
  const provider = await t.participant('provider');
  const merchant = await t.participant('merchant', { providerId: provider.id });
  const bank = await t.participant('bank');
  return { provider, merchant, parties: { merchant: { id: merchant.id, name: merchant.name, providerId: provider.id }, bankId: bank.id } };
}

describe('POST /v1/exports and GET /v1/exports/{id}', () => {
  it('transactions: the CSV has a header row and every transaction of the range, text escaped, amounts in major units', async () => {
    const s = await setup();
    const descriptions = ['Plain order', 'Comma, and "quotes"', '=HYPERLINK("http://x")', 'Line\nbreak'];
    const made = [];
    for (const [i, d] of descriptions.entries()) {
      made.push(
        await fixtureBill({ parties: s.parties, amount: 1_000 + i * 111, description: d, capturedAt: lagos(`2030-10-0${i + 1}T10:00:00`) }),
      );
    }
    const outside = await fixtureBill({ parties: s.parties, amount: 99_99, capturedAt: lagos('2030-11-01T10:00:00') });

    const r = await create(s.merchant.apiKey, { kind: 'transactions', from: '2030-10-01T00:00:00+01:00', to: '2030-10-31T23:59:59+01:00' });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.message).toBe('Export accepted');
    expect(r.body.data).toEqual({ exportId: expect.stringMatching(/^exp_/), status: 'pending' });
    const pending = await read(s.merchant.apiKey, r.body.data.exportId);
    expect(pending.body.data).toEqual({ exportId: r.body.data.exportId, status: 'pending', rowCount: null, url: null });

    const done = await ready(s.merchant.apiKey, r.body.data.exportId);
    expect(done.status).toBe(200);
    expect(done.body.message).toBe('Export retrieved');
    expect(done.body.data).toMatchObject({
      exportId: r.body.data.exportId,
      status: 'ready',
      rowCount: 4,
      url: expect.stringMatching(/^http/),
    });
    const file = await fetch(done.body.data.url);
    expect(file.status).toBe(200);
    const text = await file.text();
    expect(parseCsv(text)[0]).toEqual([
      'reference',
      'billingRequestId',
      'type',
      'status',
      'amount',
      'refundedAmount',
      'currency',
      'description',
      'customerId',
      'entityId',
      'merchantName',
      'bankTransactionId',
      'scheduleId',
      'settlementId',
      'disputedAmount',
      'disputeStatus',
      'createdAt',
      'updatedAt',
    ]);
    const rows = csvRecords(text);
    expect(rows.map((x) => x.reference).sort()).toEqual(made.map((b) => b.reference).sort());
    expect(rows.some((x) => x.reference === outside.reference)).toBe(false);
    const byRef = new Map(rows.map((x) => [x.reference, x]));
    for (const [i, b] of made.entries()) {
      const row = byRef.get(b.reference)!;
      expect(Number(row.amount)).toBe(b.amount / 100);
      expect(row).toMatchObject({
        status: 'succeeded',
        currency: 'NGN',
        settlementId: '',
        disputedAmount: '0',
        disputeStatus: '',
        billingRequestId: b.billingRequestId,
        entityId: s.merchant.id,
        merchantName: s.merchant.name,
      });
      expect(row.description).toBe(i === 2 ? `'${descriptions[i]}` : descriptions[i]); // a formula is defused
    }
    // The URL is a pre-signed GET with an expiry.
    expect(new URL(done.body.data.url).searchParams.get('X-Amz-Expires')).toBe('900');
  });

  it('settlement: the lines of one settlement, summing to its amount; a provider exports for its merchant', async () => {
    const s = await setup();
    const a = await fixtureBill({ parties: s.parties, amount: 300_00, capturedAt: lagos('2030-10-07T10:00:00') });
    const b = await fixtureBill({ parties: s.parties, amount: 45_50, capturedAt: lagos('2030-10-07T11:00:00') });
    const refund = await t.call('POST', '/v1/refunds/initiate', { key: s.merchant.apiKey, body: { reference: a.reference, amount: 100 } });
    await t.call('POST', `/v1/sandbox/refunds/${refund.body.data.refundId}/complete`, { key: s.merchant.apiKey, body: {} });
    await t.app.tick(new Date('2030-10-07T23:00:00.000Z'));
    await t.app.settle();
    const [stl] = (await t.call('GET', '/v1/settlements', { key: s.merchant.apiKey })).body.data.settlements;
    expect(stl.amount).toBe(245.5);

    const r = await create(s.provider.apiKey, { kind: 'settlement', settlementId: stl.settlementId }, { 'x-entity-id': s.merchant.id });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const done = await ready(s.merchant.apiKey, r.body.data.exportId);
    expect(done.body.data).toMatchObject({ status: 'ready', rowCount: 3 });
    const rows = csvRecords(await (await fetch(done.body.data.url)).text());
    expect(Object.keys(rows[0]!)).toEqual(['settlementId', 'businessDate', 'reference', 'type', 'amount', 'currency']);
    expect(Math.round(rows.reduce((sum, x) => sum + Number(x.amount) * 100, 0))).toBe(245_50);
    expect(rows.map((x) => [x.reference, x.type, Number(x.amount)]).sort()).toEqual(
      [
        [a.reference, 'payment', 300],
        [a.reference, 'refund', -100],
        [b.reference, 'payment', 45.5],
      ].sort(),
    );
    expect(new Set(rows.map((x) => x.settlementId))).toEqual(new Set([stl.settlementId]));
  });

  it('bad bodies are 400 Invalid request parameters and write nothing; foreign or unknown ids are 404; banks are refused', async () => {
    const s = await setup();
    const other = await t.participant('merchant');
    for (const body of [
      {},
      { kind: 'ledger' },
      { kind: 'settlement' },
      { kind: 'settlement', settlementId: 'stl_x', from: '2030-01-01T00:00:00Z' },
      { kind: 'transactions', settlementId: 'stl_x' },
      { kind: 'transactions', from: '2030-02-01T00:00:00Z', to: '2030-01-01T00:00:00Z' },
      { kind: 'transactions', from: '2030-01-01' },
      { kind: 'transactions', extra: 1 },
    ]) {
      const r = await create(s.merchant.apiKey, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    const unknownStl = await create(s.merchant.apiKey, { kind: 'settlement', settlementId: 'stl_nope' });
    expect(unknownStl.status).toBe(404);
    expect(unknownStl.body.message).toBe('Settlement not found');

    const mine = await create(s.merchant.apiKey, { kind: 'transactions' });
    expect(mine.status).toBe(202);
    for (const [key, headers] of [
      [other.apiKey, undefined],
      [s.merchant.apiKey, undefined],
    ] as const) {
      const r = await read(key, key === other.apiKey ? mine.body.data.exportId : 'exp_unknown', headers);
      expect(r.status).toBe(404);
      expect(r.body.message).toBe('Export not found');
    }
    const viaProvider = await read(s.provider.apiKey, mine.body.data.exportId, { 'x-entity-id': s.merchant.id });
    expect(viaProvider.status).toBe(200);
    const bank = await t.participant('bank');
    const refused = await create(bank.apiKey, { kind: 'transactions' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Forbidden for this participant type');
    // An empty range is a CSV with its header row only.
    const empty = await ready(other.apiKey, (await create(other.apiKey, { kind: 'transactions' })).body.data.exportId);
    expect(empty.body.data).toMatchObject({ status: 'ready', rowCount: 0 });
    expect(parseCsv(await (await fetch(empty.body.data.url)).text())).toHaveLength(1);
  });
});
