/**
 * The dashboard's disputes (DESIGN 9.4, 9.7) in Chromium against the real local stack: the
 * customer's bank opens a dispute from the transaction's page, the merchant answers it with
 * evidence on the Disputes page and accepts another after a confirmation dialog, the bank
 * resolves the answered one. Each page passes axe (no serious or critical violation) and fits
 * 375 px.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { agreement, bankResponse, bill } from '../support/flows';
import type { SignedIn } from '../support/people';
import {
  BROWSER_TEST_TIMEOUT_MS,
  DESKTOP,
  PHONE,
  expectAccessible,
  expectFitsWidth,
  newPage,
  openPage,
  ownedBy,
  screenshot,
  signInThroughForm,
  withBrowser,
} from '../support/browser';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

let t: TestApp;
withAppAndReceiver((app) => {
  t = app;
});

let browser: Browser;
withBrowser('dashboard-disputes', (b) => {
  browser = b;
});

async function signedIn(who: SignedIn, viewport = DESKTOP): Promise<Page> {
  const { page } = await newPage(browser, viewport);
  await signInThroughForm(page, t.url, who.email, who.password);
  return page;
}

describe('dashboard: disputes', () => {
  it('the bank opens a dispute from the transaction, the merchant answers it (and accepts another after a confirmation), the bank resolves it', async () => {
    const { party: merchant, owner: merchantOwner } = await ownedBy(t, 'merchant');
    const { party: bank, owner: bankOwner } = await ownedBy(t, 'bank');
    const a = await agreement(t, { merchant, bank });
    const billed = await bill(t, merchant, [a.agreementPhrase], 300);
    expect(billed.status).toBe(201);
    const reference = billed.body[0].reference as string;
    expect((await bankResponse(t, bank, billed.body[0].billingRequestId, 'approve_once')).status).toBe(200);

    // The bank: Transactions -> the transaction -> Open dispute (120.00, duplicate).
    const bp = await signedIn(bankOwner);
    await openPage(bp, 'Transactions');
    await bp
      .getByRole('table', { name: /^Transactions/ })
      .getByRole('row')
      .filter({ hasText: reference })
      .getByRole('link', { name: reference })
      .click();
    await bp.getByRole('heading', { name: `Transaction ${reference}` }).waitFor();
    const form = bp.getByRole('form', { name: 'Open a dispute' });
    await form.getByLabel('Reason').selectOption('duplicate');
    await form.getByLabel('Dispute amount (NGN)').fill('120');
    await form.getByRole('button', { name: 'Open dispute' }).click();
    const opened = await bp.getByText(/^Dispute dsp_\S+ of ₦120.00 opened/).textContent();
    const answeredId = /^Dispute (\S+) of/.exec(opened!)![1]!;
    await bp
      .getByRole('table', { name: `Disputes of ${reference}` })
      .getByRole('cell', { name: 'needs response' })
      .waitFor();
    await expectAccessible(bp, 'transaction with its disputes (bank)');
    // A second dispute, through the API: the merchant accepts it.
    const second = await t.call('POST', '/v1/bank/disputes', { key: bank.apiKey, body: { reference, reason: 'other', amount: 30 } });
    expect(second.status).toBe(201);
    const acceptedId = second.body.data.disputeId as string;

    // The merchant: Disputes -> View (the dispute's page) -> evidence -> Submit evidence.
    const mp = await signedIn(merchantOwner, PHONE);
    await openPage(mp, 'Disputes');
    const table = mp.getByRole('table', { name: /^Disputes/ });
    await table.getByRole('row').filter({ hasText: answeredId }).getByRole('link', { name: 'View' }).click();
    await mp.getByRole('heading', { name: `Dispute ${answeredId}` }).waitFor();
    await expectAccessible(mp, 'dispute needing a response at 375 px (merchant)');
    await expectFitsWidth(mp, 'Disputes');
    await screenshot(mp, 'disputes-375');
    await mp.getByLabel('Evidence').fill('Two separate orders: #1001 and #1002.\nBoth delivered.');
    await mp.getByRole('button', { name: 'Submit evidence' }).click();
    await mp.getByRole('definition').filter({ hasText: 'under review' }).waitFor();
    expect((await t.call('GET', `/v1/disputes/${answeredId}`, { key: merchant.apiKey })).body.data).toMatchObject({
      status: 'under_review',
      evidence: { text: 'Two separate orders: #1001 and #1002.\nBoth delivered.' },
    });

    // Accept the other one: a dialog asks first; Cancel leaves it, Confirm accepts.
    await openPage(mp, 'Disputes');
    await table.getByRole('row').filter({ hasText: acceptedId }).getByRole('link', { name: 'View' }).click();
    await mp.getByRole('heading', { name: `Dispute ${acceptedId}` }).waitFor();
    await mp.getByRole('button', { name: 'Accept dispute' }).click();
    const dialog = mp.getByRole('dialog', { name: 'Accept this dispute?' });
    await dialog.waitFor();
    await expectAccessible(mp, 'accept dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await t.call('GET', `/v1/disputes/${acceptedId}`, { key: merchant.apiKey })).body.data.status).toBe('needs_response');
    await mp.getByRole('button', { name: 'Accept dispute' }).click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await mp
      .getByRole('definition')
      .filter({ hasText: /^lost$/ })
      .waitFor();
    expect((await t.call('GET', `/v1/disputes/${acceptedId}`, { key: merchant.apiKey })).body.data).toMatchObject({
      status: 'lost',
      closedBy: 'merchant',
    });
    await mp.context().close();

    // The bank: Disputes -> the answered one -> Resolve: merchant wins.
    await openPage(bp, 'Disputes');
    await bp
      .getByRole('table', { name: /^Disputes/ })
      .getByRole('row')
      .filter({ hasText: answeredId })
      .getByRole('link', { name: 'View' })
      .click();
    await bp.getByRole('heading', { name: `Dispute ${answeredId}` }).waitFor();
    await bp.getByText('Both delivered.').waitFor();
    await expectAccessible(bp, 'dispute under review (bank)');
    await bp.getByRole('button', { name: 'Resolve: merchant wins' }).click();
    await bp.getByRole('definition').filter({ hasText: /^won$/ }).waitFor();
    expect((await t.call('GET', `/v1/bank/disputes/${answeredId}`, { key: bank.apiKey })).body.data).toMatchObject({
      status: 'won',
      closedBy: 'bank',
    });
    // The transaction shows what is still disputed (the lost 30.00).
    expect((await t.call('GET', '/v1/transaction-details', { key: merchant.apiKey, query: { reference } })).body.data).toMatchObject({
      disputedAmount: 30,
    });
    await bp.context().close();
  });
});
