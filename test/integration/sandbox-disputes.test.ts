/**
 * Disputes in the sandbox (DESIGN 9.4): the magic customer `dispute.unauthorized` whose every
 * approved debit the simulated bank disputes SANDBOX_BANK_DELAY_SECONDS later; the helper
 * `POST /v1/sandbox/transactions/{reference}/dispute`; the simulated bank deciding a dispute
 * under review on the evidence (`winning_evidence` wins). Real local stack, the tick driven
 * by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDispute } from '../../functions/disputes/views';
import type { TestApp } from '../support/app';
import { events, lookupPhraseFor, pay, webhook, type Hook, type Party } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { letSimulatedBankAnswer, magicEmail, SANDBOX_BANK_DELAY_MS, startSandboxWorld, stopSandboxWorld } from '../support/sandbox-world';

let t: TestApp;
let rx: Receiver;
let sim: Party;

beforeAll(async () => {
  ({ t, rx, sim } = await startSandboxWorld());
});
afterAll(() => stopSandboxWorld({ t, rx }));

/** Tick far enough for the simulated bank's follow-ups (one delay after the last answer). */
async function bankActsAgain() {
  await t.app.tick(new Date(Date.now() + 3 * SANDBOX_BANK_DELAY_MS + 1_000));
  await t.app.settle();
}

async function paidBy(merchant: Party, hook: Hook, local: string, amount: number): Promise<string> {
  const phrase = await lookupPhraseFor(t, merchant, magicEmail(local), sim.id);
  const p = await pay(t, merchant, [phrase], amount);
  expect(p.status).toBe(201);
  const reference = p.body[0].reference as string;
  await letSimulatedBankAnswer(t);
  const [res] = await events(rx, hook, 'billing.response', 1, (e) => e.data.reference === reference);
  expect(res!.data.status).toBe('succeeded');
  return reference;
}

describe('the simulated bank disputes and decides', () => {
  it('dispute.unauthorized: the approved debit is disputed as unauthorized after the delay; winning_evidence wins it back', async () => {
    const merchant = await t.participant('merchant');
    const hook = await webhook(t, rx, merchant, { label: 'm' });
    const customers = (await t.call('GET', '/v1/sandbox/customers', { key: merchant.apiKey })).body.data.customers as {
      email: string;
      deviceId: string;
      disputeReason: string | null;
    }[];
    expect(customers.find((c) => c.email === magicEmail('dispute.unauthorized'))).toMatchObject({
      deviceId: 'sandbox-device-dispute-unauthorized',
      disputeReason: 'unauthorized',
    });
    expect(customers.find((c) => c.email === magicEmail('approve.recurring'))?.disputeReason).toBeNull();
    const reference = await paidBy(merchant, hook, 'dispute.unauthorized', 40);

    await bankActsAgain();
    const [created] = await events(rx, hook, 'dispute.created', 1, (e) => e.data.reference === reference);
    expect(created!.data).toMatchObject({ reason: 'unauthorized', amount: 40, status: 'needs_response', actor: 'bank' });
    const id = created!.data.disputeId as string;
    expect((await t.call('GET', '/v1/transaction-details', { key: merchant.apiKey, query: { reference } })).body.data).toMatchObject({
      disputedAmount: 40,
      disputeStatus: 'needs_response',
    });
    // Only once: a later run of the same job finds the dispute.
    await bankActsAgain();
    expect((await t.call('GET', '/v1/disputes', { key: merchant.apiKey, query: { reference } })).body.data.disputes).toHaveLength(1);

    const r = await t.call('POST', `/v1/disputes/${id}/respond`, {
      key: merchant.apiKey,
      body: { evidence: { text: 'The customer signed for it: winning_evidence' } },
    });
    expect(r.status).toBe(200);
    await bankActsAgain();
    await events(rx, hook, 'dispute.updated', 1, (e) => e.data.disputeId === id && e.data.status === 'won');
    expect(await getDispute(id)).toMatchObject({ status: 'won', closedBy: 'bank' });
  });

  it('the helper disputes a transaction now; evidence without winning_evidence loses; another merchant gets 404', async () => {
    const merchant = await t.participant('merchant');
    const other = await t.participant('merchant');
    const hook = await webhook(t, rx, merchant, { label: 'm2' });
    const reference = await paidBy(merchant, hook, 'approve.recurring', 25);

    const foreign = await t.call('POST', `/v1/sandbox/transactions/${reference}/dispute`, { key: other.apiKey, body: {} });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Transaction not found');

    const d = await t.call('POST', `/v1/sandbox/transactions/${reference}/dispute`, {
      key: merchant.apiKey,
      body: { reason: 'not_received' },
    });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    expect(d.body.data).toMatchObject({ reference, reason: 'not_received', amount: 25, status: 'needs_response' });
    await events(rx, hook, 'dispute.created', 1, (e) => e.data.disputeId === d.body.data.disputeId);
    const again = await t.call('POST', `/v1/sandbox/transactions/${reference}/dispute`, { key: merchant.apiKey, body: {} });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Dispute amount exceeds the disputable amount');

    const id = d.body.data.disputeId as string;
    expect(
      (await t.call('POST', `/v1/disputes/${id}/respond`, { key: merchant.apiKey, body: { evidence: { text: 'We shipped it' } } })).status,
    ).toBe(200);
    await bankActsAgain();
    await events(rx, hook, 'dispute.updated', 1, (e) => e.data.disputeId === id && e.data.status === 'lost');
    expect(await getDispute(id)).toMatchObject({ status: 'lost', closedBy: 'bank' });
  });
});
