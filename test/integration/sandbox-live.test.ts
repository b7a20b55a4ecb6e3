/**
 * Live safety of the sandbox, on a live-stage stack (`STAGE=live`): a simulated
 * bank cannot be created; every sandbox route is 404 `Route not found`; and even a bank item
 * flagged `simulated` (as if one existed, e.g. restored from a sandbox backup) is never
 * answered for: the outbox hook does not put its events on the due index, and the
 * `sandbox.bank` worker refuses to act when a job reaches it anyway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventKey } from '../../functions/webhooks/delivery-store';
import { ROUTES } from '../../functions/routes';
import { seedSimulatedBank } from '../../functions/sandbox/bank-store';
import { SANDBOX_BANK_KIND, sandboxBankDue } from '../../functions/events/sandbox-bank';
import { answerAsSimulatedBank } from '../../functions/sandbox/simulator';
import { intentKey, type IntentItem } from '../../functions/decisions/intents';
import { getParticipant, participantKey } from '../../functions/identity/participant-store';
import { db } from '../../functions/platform/clients';
import { getItem, table, UpdateCommand } from '../../functions/platform/table';
import { dueAttributes } from '../../functions/platform/due';
import { runSandboxBank } from '../../functions/sandbox/bank-worker';
import { startTestApp, type TestApp } from '../support/app';
import { scanPrefix } from '../support/billing-table';
import { lookupPhraseFor, onboardCustomer } from '../support/flows';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ STAGE: 'live', SANDBOX_BANK_DELAY_SECONDS: '0' });
});
afterAll(async () => {
  await t?.stop();
});

const SANDBOX_ROUTES = ROUTES.filter((r) => r.sandboxOnly);

describe('live stage: the sandbox does not exist', () => {
  it('creating a simulated bank is 400 and writes nothing', async () => {
    const before = (await scanPrefix('PART#')).length;
    const r = await t.call('POST', '/v1/operator/participants', {
      key: t.operatorKey,
      body: { type: 'bank', name: 'Sim', email: 'sim@example.com', simulated: true },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      statusCode: 400,
      success: false,
      message: 'Invalid request parameters',
      errors: [{ path: 'simulated', message: 'Only a bank in the sandbox stage can be simulated' }],
    });
    expect((await scanPrefix('PART#')).length).toBe(before);
    expect(await scanPrefix('CUS#')).toHaveLength(0);
    expect(await scanPrefix('SANDBOX#')).toHaveLength(0);
  });

  it('every sandbox route is 404 Route not found (with a live merchant key, a provider acting for it, or no key)', async () => {
    expect(SANDBOX_ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'DELETE /v1/sandbox/test-clocks/{clockId}',
      'GET /v1/sandbox/customers',
      'GET /v1/sandbox/test-clocks/{clockId}',
      'POST /v1/sandbox/billing-requests/{id}/expire',
      'POST /v1/sandbox/recurring/{scheduleId}/run',
      'POST /v1/sandbox/refunds/{refundId}/complete',
      'POST /v1/sandbox/settlements/run',
      'POST /v1/sandbox/test-clocks',
      'POST /v1/sandbox/test-clocks/{clockId}/advance',
      'POST /v1/sandbox/transactions/{reference}/dispute',
    ]);
    const provider = await t.participant('provider');
    const merchant = await t.participant('merchant', { providerId: provider.id });
    expect(merchant.apiKey).toMatch(/^sk_live_/);
    for (const r of SANDBOX_ROUTES) {
      const path = r.path.replace(/\{[^}]+\}/g, 'x_1');
      for (const opts of [{ key: merchant.apiKey }, { key: provider.apiKey, headers: { 'X-Entity-Id': merchant.id } }, {}]) {
        const res = await t.call(r.method, path, { ...opts, ...(r.method === 'POST' ? { body: {} } : {}) });
        expect(res.status, `${r.method} ${path}`).toBe(404);
        expect(res.body).toMatchObject({ statusCode: 404, success: false, message: 'Route not found' });
      }
    }
  });

  it('live never reads X-Test-Clock (DESIGN 8.7): the header changes nothing', async () => {
    const merchant = await t.participant('merchant');
    const r = await t.call('GET', '/v1/balance/details', { key: merchant.apiKey, headers: { 'X-Test-Clock': 'clk_0000000000000000' } });
    expect(r.status).toBe(200); // in the sandbox this unknown clock would be 404 Test clock not found
  });

  it('the pipeline refuses a sandbox route at runtime too (each handler invoked directly in live): 404, nothing runs', async () => {
    const merchant = await t.participant('merchant');
    for (const r of SANDBOX_ROUTES) {
      const mod = (await import(`../../functions/api/sandbox/${r.handler.replace('api/sandbox/', '')}.ts`)) as {
        handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>;
      };
      const res = await mod.handler(
        {
          version: '2.0',
          routeKey: `${r.method} ${r.path}`,
          rawPath: r.path,
          rawQueryString: '',
          headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
          pathParameters: {},
          requestContext: { requestId: `req-${r.handler}`, http: { method: r.method, path: r.path } },
          body: r.method === 'POST' ? '{}' : undefined,
          isBase64Encoded: false,
        },
        {},
      );
      expect(res.statusCode, r.path).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ success: false, message: 'Route not found' });
    }
  });
  it('a sandbox path with another method is 404 in live too (the path does not exist there), never 405', async () => {
    const r = await t.call('GET', '/v1/sandbox/settlements/run');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Route not found' });
    expect(r.headers.get('allow')).toBeNull();
  });
});

describe('live stage: the simulator is inert', () => {
  it('a bank item flagged simulated gets no due entry for its events, and the worker refuses a sandbox.bank job', async () => {
    // A bank that somehow carries the flag in live (never creatable through the API).
    const bank = await t.participant('bank');
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: participantKey(bank.id),
        UpdateExpression: 'SET simulated = :t',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    expect((await getParticipant(bank.id))!.simulated).toBe(true);
    // Seeding refuses in live.
    await expect(seedSimulatedBank((await getParticipant(bank.id))!)).rejects.toThrow(/only in the sandbox stage/);
    expect(await scanPrefix('SANDBOX#')).toHaveLength(0);

    const merchant = await t.participant('merchant');
    const c = await onboardCustomer(t, bank, { email: 'approve.once@sandbox.idpay.test' });
    const phrase = await lookupPhraseFor(t, merchant, c.email, bank.id);
    const r = await t.call('POST', '/v1/billing/intent', {
      key: merchant.apiKey,
      body: { lookupPhrases: [phrase], currency: 'NGN', description: 'x' },
    });
    expect(r.status).toBe(200);
    const intentId: string = r.body[0].intentId;

    // The hook did not fire: the billing.intent event is not on the due index.
    const evt = (await scanPrefix<{ id: string; type: string; to: string; duePk?: string; dueSk?: string }>('EVT#')).find(
      (e) => e.type === 'billing.intent' && e.to === bank.id,
    )!;
    expect(evt).toBeDefined();
    expect(evt.duePk).toBeUndefined();
    expect(evt.dueSk).toBeUndefined();
    expect(sandboxBankDue({ simulated: true }, 'billing.intent', evt.id, Date.now())).toEqual({});

    await t.app.tick(new Date(Date.now() + 3_600_000));
    await t.app.settle();
    expect((await getItem<IntentItem>(intentKey(intentId)))!.status).toBe('open');

    // Even with a due entry put there by hand, the tick's job is refused and leaves the index.
    const due = dueAttributes(SANDBOX_BANK_KIND, evt.id, new Date());
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: eventKey(evt.id),
        UpdateExpression: 'SET duePk = :p, dueSk = :s',
        ExpressionAttributeValues: { ':p': due.duePk, ':s': due.dueSk },
      }),
    );
    const tick = await t.app.tick(new Date(Date.now() + 1000));
    expect(tick.claimed).toBeGreaterThanOrEqual(1);
    await t.app.settle();
    expect((await getItem(eventKey(evt.id)))!.dueSk).toBeUndefined();
    expect((await getItem<IntentItem>(intentKey(intentId)))!.status).toBe('open');
    const decisions = await t.call('GET', '/v1/merchant/customer-decisions', { key: merchant.apiKey });
    expect(decisions.body.total).toBe(0);

    // The worker and the simulator refuse when called directly.
    const job = {
      kind: SANDBOX_BANK_KIND,
      id: evt.id,
      key: eventKey(evt.id),
      dueAt: new Date().toISOString(),
      leasedSk: 'x',
      now: new Date().toISOString(),
    };
    expect(await runSandboxBank(job)).toEqual({ acted: false, why: 'live_stage' });
    const stored = (await getItem<{ type: string; to: string; data: Record<string, unknown> }>(eventKey(evt.id)))!;
    expect(await answerAsSimulatedBank({ type: stored.type, to: stored.to, data: stored.data }, new Date())).toEqual({
      acted: false,
      why: 'live_stage',
    });
    expect((await getItem<IntentItem>(intentKey(intentId)))!.status).toBe('open');
  });
});
