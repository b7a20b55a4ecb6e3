/**
 * The dashboard, finding and seeing (DESIGN 9.3, 9.7) in Debian's Chromium against the local
 * stack: the Search field finds a transaction by its reference and by the customer's e-mail
 * and lands on its page; 120 transactions page by cursor; a failing endpoint is flagged on
 * Home and its delivery's 500 answer is shown; a transaction's page lists its events and their
 * deliveries; a refund happens only after `Confirm`; an export
 * follows the status filter; no page is wider than 375 px; every page passes axe.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../support/app';
import type { Receiver } from '../../local/receiver';
import { agreement, bankResponse, bill, type Agreement } from '../support/flows';
import { fixtureBill } from '../support/money-fixtures';
import { scanPrefix } from '../support/billing-table';
import { csvRecords } from '../support/csv';
import type { SignedIn } from '../support/people';
import {
  BROWSER_TEST_TIMEOUT_MS,
  checkPage,
  DESKTOP,
  PHONE,
  expectAccessible,
  openPage,
  ownedBy,
  searchFor,
  signedInPage,
  withDashboardStack,
} from '../support/browser';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

let t: TestApp;
let rx: Receiver;
let browser: Browser;
withDashboardStack('dashboard-finding', (stack) => ({ t, rx, browser } = stack));

const signedIn = (who: SignedIn, viewport = DESKTOP): Promise<Page> => signedInPage(browser, t.url, who, viewport);
const check = checkPage;
const search = searchFor;

let owner: SignedIn;
let a: Agreement;
let reference: string;
const DECLINED = 4;

beforeAll(async () => {
  const made = await ownedBy(t, 'merchant');
  owner = made.owner;
  a = await agreement(t, { merchant: made.party });
  const parties = { merchant: { id: made.party.id, name: made.party.name }, bankId: a.bank.id };
  // 115 succeeded and 4 declined transactions of other customers, then one of the agreement's customer: 120.
  const base = Date.now() - 3_600_000;
  for (let i = 0; i < 115; i++)
    await fixtureBill({ parties, amount: 1_000 + i, description: `Bulk order ${i}`, capturedAt: new Date(base + i * 1000) });
  for (let i = 0; i < DECLINED; i++)
    await fixtureBill({
      parties,
      amount: 500,
      description: `Declined order ${i}`,
      status: 'declined',
      createdAt: new Date(base + 200_000 + i),
    });
  const b = await bill(t, made.party, [a.agreementPhrase], 2_500, { description: 'Searchable lamp' });
  expect(b.status).toBe(201);
  reference = b.body[0].reference;
  expect((await bankResponse(t, a.bank, b.body[0].billingRequestId, 'approve_once')).status).toBe(200);
}, 180_000);

describe('dashboard: finding and seeing', () => {
  it('pages through 120 transactions by cursor, the page in the URL', async () => {
    const page = await signedIn(owner);
    await openPage(page, 'Transactions');
    const rows = (n: number) => page.getByRole('table', { name: `Transactions, page ${n}` }).getByRole('row');
    await rows(1).first().waitFor();
    expect(await rows(1).count()).toBe(51); // the header row and 50
    await page.getByRole('button', { name: 'Next page' }).click();
    await rows(2).first().waitFor();
    expect(await rows(2).count()).toBe(51);
    expect(page.url()).toMatch(/[?&]pages=/);
    await page.getByRole('button', { name: 'Next page' }).click();
    await rows(3).first().waitFor();
    expect(await rows(3).count()).toBe(21);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    // The URL is the page: reloading it shows page 3 again.
    await page.reload();
    await rows(3).first().waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await rows(2).first().waitFor();
    await check(page, 'transactions page 2');
    await page.context().close();
  });

  it('Search finds a transaction by its reference and by the customer e-mail, and lands on its page', async () => {
    const page = await signedIn(owner);
    await search(page, reference);
    await page.getByRole('heading', { level: 1, name: `Transaction ${reference}` }).waitFor();
    await page.getByText('Searchable lamp').waitFor();
    expect(page.url()).toContain(`/dashboard/transactions/${reference}`);
    await check(page, 'transaction page');

    await openPage(page, 'Home');
    await search(page, a.email.toUpperCase());
    // The customer's transactions with this merchant: one, the lamp.
    const table = page.getByRole('table', { name: /^Transactions/ });
    await table.getByRole('link', { name: reference }).click();
    await page.getByRole('heading', { level: 1, name: `Transaction ${reference}` }).waitFor();

    // Nothing found: the results page says so.
    await search(page, 'nobody@example.com');
    await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
    await page.getByText('Nothing found.', { exact: false }).waitFor();
    await check(page, 'search results');
    await page.context().close();
  });

  it('a refund happens only after Confirm, and the transaction page lists it', async () => {
    const page = await signedIn(owner);
    await page.goto(`${t.url}/dashboard/transactions/${reference}`);
    await page.getByRole('heading', { level: 1, name: `Transaction ${reference}` }).waitFor();
    await page.getByLabel('Refund amount (NGN)').fill('10');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this transaction?' });
    await dialog.waitFor();
    await expectAccessible(page, 'refund dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await scanPrefix('REFUND#')).toHaveLength(0);

    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(/^Refund rfd_\S+ of ₦10\.00 is/).waitFor();
    const refunds = await scanPrefix<{ reference: string; amount: number; refundId: string }>('REFUND#');
    expect(refunds.map((r) => [r.reference, r.amount])).toEqual([[reference, 1_000]]);
    // The transaction's page lists its refund, also when opened afresh.
    const listed = page
      .getByRole('table', { name: `Refunds of ${reference}` })
      .getByRole('row')
      .filter({ hasText: refunds[0]!.refundId });
    await listed.getByRole('cell', { name: '₦10.00' }).waitFor();
    await page.reload();
    await listed.getByRole('cell', { name: '₦10.00' }).waitFor();
    await check(page, 'transaction page with its refund');
    await page.context().close();
  });

  it('an export follows the status filter and is named after it', async () => {
    const page = await signedIn(owner);
    await openPage(page, 'Transactions');
    await page.getByLabel('Status').selectOption('declined');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('table', { name: 'Transactions, page 1' }).getByRole('row').nth(DECLINED).waitFor();
    expect(page.url()).toContain('status=declined');
    await page.getByRole('button', { name: 'Export these transactions (CSV)' }).click();
    const link = page.getByRole('link', { name: `Download CSV (${DECLINED} rows)` });
    for (let i = 0; i < 40 && (await link.count()) === 0; i++) {
      await t.app.tick(new Date());
      await t.app.settle();
      await page.waitForTimeout(500);
    }
    const href = (await link.getAttribute('href'))!;
    expect(new URL(href).pathname).toMatch(/\/idpay-transactions-declined-start-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = csvRecords(await (await fetch(href)).text());
    expect(rows).toHaveLength(DECLINED);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['declined']));
    await page.context().close();
  });

  it("a failing endpoint is flagged on Home and its delivery's 500 answer is shown", async () => {
    const m = await ownedBy(t, 'merchant');
    const { url, path } = rx.endpointUrl('failing');
    rx.respond(path, { status: 500, body: 'receiver exploded: disk full' });
    const ep = await t.call('POST', '/v1/webhooks/endpoints', { key: m.party.apiKey, body: { url } });
    expect(ep.status).toBe(201);
    for (let i = 0; i < 5; i++)
      expect((await t.call('POST', `/v1/webhooks/endpoints/${ep.body.data.id}/test`, { key: m.party.apiKey })).status).toBe(202);
    await rx.waitFor(path, (reqs) => reqs.length >= 5);
    await t.app.settle();

    const page = await signedIn(m.owner);
    const failing = page.getByRole('table', { name: 'Failing webhook endpoints' });
    const row = failing.getByRole('row').filter({ hasText: url });
    await row.waitFor();
    await row.getByRole('cell', { name: 'failing', exact: true }).waitFor();
    await check(page, 'home with a failing endpoint');
    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Delivery dlv_/ }).waitFor();
    await page.getByRole('heading', { name: 'Attempt 1: answered 500' }).waitFor();
    await page.getByRole('region', { name: 'Response body of attempt 1' }).getByText('receiver exploded: disk full').waitFor();
    const requestHeaders = page.getByRole('table', { name: 'Request headers of attempt 1' });
    await requestHeaders.waitFor();
    // Both signature headers (Standard Webhooks' and X-Webhook-Signature) show as <redacted>.
    expect(await requestHeaders.getByRole('cell', { name: '<redacted>', exact: true }).count()).toBe(2);
    await check(page, 'delivery page');
    await page.context().close();
  });

  it("a transaction's page lists its events, each delivery with its answer and a link to its page", async () => {
    const m = await ownedBy(t, 'merchant');
    const { url, path } = rx.endpointUrl('txn-events');
    rx.respond(path, { status: 500, body: 'order system down' });
    expect((await t.call('POST', '/v1/webhooks/endpoints', { key: m.party.apiKey, body: { url } })).status).toBe(201);
    const ag = await agreement(t, { merchant: m.party });
    const b = await bill(t, m.party, [ag.agreementPhrase], 700, { description: 'Watched lamp' });
    expect(b.status).toBe(201);
    const ref = b.body[0].reference as string;
    expect((await bankResponse(t, ag.bank, b.body[0].billingRequestId, 'approve_once')).status).toBe(200);
    await rx.waitFor(path, (reqs) => reqs.length >= 1);
    await t.app.settle();

    const page = await signedIn(m.owner);
    await page.goto(`${t.url}/dashboard/transactions/${ref}`);
    await page.getByRole('heading', { level: 1, name: `Transaction ${ref}` }).waitFor();
    const row = page
      .getByRole('table', { name: `Events of ${ref}` })
      .getByRole('row')
      .filter({ hasText: 'billing.response' });
    await row.getByText('failed 500, 1 attempt').waitFor();
    // Only the merchant's event: the bank's billing.request is not on its page.
    expect(
      await page
        .getByRole('table', { name: `Events of ${ref}` })
        .getByRole('row')
        .count(),
    ).toBe(2);
    await check(page, 'transaction page with its events');
    await row.getByRole('link', { name: /^dlv_/ }).click();
    await page.getByRole('heading', { level: 1, name: /^Delivery dlv_/ }).waitFor();
    await page.getByRole('heading', { name: 'Attempt 1: answered 500' }).waitFor();
    await page.getByRole('region', { name: 'Response body of attempt 1' }).getByText('order system down').waitFor();
    await page.context().close();
  });

  it('Home shows Get started and the 30-day volume with its table; no page is wider than 375 px', async () => {
    const page = await signedIn(owner, PHONE);
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    await page.getByRole('group', { name: /^Daily volume: 116 debits/ }).waitFor();
    await page.getByText('Show the volume as a table').click();
    await page.getByRole('table', { name: 'Volume per day' }).getByRole('row').nth(30).waitFor();
    await check(page, 'home at 375 px');
    for (const link of ['Webhooks', 'Events', 'Transactions', 'Schedules']) {
      await openPage(page, link);
      await check(page, `${link} at 375 px`);
    }
    await page.goto(`${t.url}/dashboard/transactions/${reference}`);
    await page.getByRole('heading', { level: 1, name: `Transaction ${reference}` }).waitFor();
    await check(page, 'transaction at 375 px');
    await page.context().close();

    // The bank's pages at 375 px, with a decision to show.
    const banker = await ownedBy(t, 'bank');
    await agreement(t, { bank: banker.party });
    const bp = await signedIn(banker.owner, PHONE);
    for (const link of ['Home', 'Transactions', 'Customers', 'Decisions']) {
      await openPage(bp, link);
      await check(bp, `bank ${link} at 375 px`);
    }
    await bp.context().close();
  });
});
