/**
 * The dashboard's lists and object pages (DESIGN 9.7) in Debian's Chromium against the local
 * stack: every list pages by cursor with its filters in the URL (Events and Decisions through
 * more than one page, the filter kept across a reload and the back button); a schedule's page
 * and a decision's page, reached from their lists and from Search; a bank's customer's consents
 * (DESIGN 10.5) with their revoke; customers' names and
 * e-mails and merchants' names beside their ids; every page axe-clean and no wider than 375 px.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { withAppAndReceiver, type TestApp } from '../support/app';
import type { Receiver } from '../../local/receiver';
import { agreement, bankResponse, bill, type Agreement, type Party } from '../support/flows';
import { newSchedule } from '../support/recurring-fixtures';
import type { SignedIn } from '../support/people';
import {
  BROWSER_TEST_TIMEOUT_MS,
  BROWSER_WAIT_MS,
  checkPage,
  DESKTOP,
  PHONE,
  openPage,
  ownedBy,
  searchFor,
  screenshot,
  signedInPage,
  withBrowser,
} from '../support/browser';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

let t: TestApp;
let rx: Receiver;
withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

let browser: Browser;
withBrowser('dashboard-lists', (b) => {
  browser = b;
});

const signedIn = (who: SignedIn, viewport = DESKTOP): Promise<Page> => signedInPage(browser, t.url, who, viewport);
const check = checkPage;
const search = searchFor;

/** Data rows of the table named `name` (without its header row). */
const dataRows = (page: Page, name: string | RegExp) =>
  page
    .getByRole('table', { name })
    .getByRole('row')
    .filter({ has: page.getByRole('cell') });

/** Until the table shows `n` data rows (the page loads at the machine's pace: up to BROWSER_WAIT_MS). */
const expectRows = (page: Page, name: string | RegExp, n: number) =>
  expect.poll(() => dataRows(page, name).count(), { timeout: BROWSER_WAIT_MS }).toBe(n);

// A merchant (signed in by its owner) with 22 test events beside other events, and a bank
// (signed in by its owner) with 22 approved customers and 2 denied ones of that merchant.
const TEST_EVENTS = 22;
const APPROVED = 22;
let merchant: { party: Party; owner: SignedIn };
let bank: { party: Party; owner: SignedIn };
const approved: Agreement[] = [];
const denied: Agreement[] = [];

beforeAll(async () => {
  merchant = await ownedBy(t, 'merchant');
  bank = await ownedBy(t, 'bank');
  for (let i = 0; i < APPROVED; i++) approved.push(await agreement(t, { bank: bank.party, merchant: merchant.party }));
  for (let i = 0; i < 2; i++) denied.push(await agreement(t, { bank: bank.party, merchant: merchant.party, decision: 'deny' }));
  const hook = await t.call('POST', '/v1/webhooks/endpoints', { key: merchant.party.apiKey, body: { url: rx.endpointUrl('lists').url } });
  expect(hook.status).toBe(201);
  for (let i = 0; i < TEST_EVENTS; i++)
    expect((await t.call('POST', `/v1/webhooks/endpoints/${hook.body.data.id}/test`, { key: merchant.party.apiKey })).status).toBe(202);
  await t.app.settle();
}, 300_000);

describe('dashboard: every list pages, with its filters in the URL', () => {
  it('Events: a type filter kept through two pages, a reload and the back button', async () => {
    // Other events than the test events (the decisions' billing.intent.response): the filter matters.
    const all = await t.call('GET', '/v1/events', { key: merchant.party.apiKey, query: { limit: '100' } });
    expect(all.body.data.events.filter((e: { type: string }) => e.type !== 'webhook.test').length).toBeGreaterThan(0);
    const page = await signedIn(merchant.owner);
    await openPage(page, 'Events');
    // 20 rows per page: the page size is a URL parameter too.
    await page.getByRole('group', { name: 'Pages' }).getByLabel('Rows per page').selectOption('20');
    await page.waitForURL(/[?&]limit=20/);
    await page.getByLabel('Event type').selectOption('webhook.test');
    await page.waitForURL(/[?&]type=webhook\.test/);
    expect(page.url()).toMatch(/[?&]limit=20/);
    await expectRows(page, 'Events, page 1', 20);
    expect(await dataRows(page, 'Events, page 1').filter({ hasNotText: 'webhook.test' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Next page' }).click();
    await expectRows(page, 'Events, page 2', TEST_EVENTS - 20);
    expect(await dataRows(page, 'Events, page 2').filter({ hasNotText: 'webhook.test' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    expect(page.url()).toMatch(/[?&]pages=evt_/);

    // The URL is the page: a reload shows page 2 of the same filter.
    await page.reload();
    await expectRows(page, 'Events, page 2', TEST_EVENTS - 20);
    expect(await page.getByLabel('Event type').inputValue()).toBe('webhook.test');
    await check(page, 'events page 2');
    await screenshot(page, 'events-desktop');
    // The back button returns to page 1, the filter still on.
    await page.goBack();
    await expectRows(page, 'Events, page 1', 20);
    expect(await page.getByLabel('Event type').inputValue()).toBe('webhook.test');
    await page.getByRole('button', { name: 'Previous page' }).waitFor();
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await page.context().close();
  });

  it("Decisions: the bank's filter kept through two pages and a reload; names and e-mails beside the ids", async () => {
    const page = await signedIn(bank.owner);
    await page.goto(`${t.url}/dashboard/decisions?limit=20`);
    await page.getByRole('heading', { level: 1, name: 'Decisions' }).waitFor();
    await page.getByLabel('Decision', { exact: true }).selectOption('approve_once');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/decision=approve_once/);
    await expectRows(page, 'Customer decisions, page 1', 20);
    // The customer's name and e-mail and the merchant's name beside their ids.
    const first = dataRows(page, 'Customer decisions, page 1').filter({ hasText: approved.at(-1)!.customerId });
    await first.getByText(approved.at(-1)!.email).waitFor();
    await first.getByText(/^Ada Obi\d+$/).waitFor();
    await first.getByText(merchant.party.name, { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Next page' }).click();
    await expectRows(page, 'Customer decisions, page 2', APPROVED - 20);
    await page.reload();
    await expectRows(page, 'Customer decisions, page 2', APPROVED - 20);
    const rows = dataRows(page, 'Customer decisions, page 2');
    expect(await rows.filter({ hasText: 'deny' }).filter({ hasNotText: 'approve once' }).count()).toBe(0);
    for (const d of denied) expect(await rows.filter({ hasText: d.customerId }).count()).toBe(0);
    await check(page, 'decisions page 2');
    await page.context().close();
  });
});

describe('dashboard: pages of their own for a decision and a schedule', () => {
  it("a bank's decision page from its list and from Search: the decision, its customer and merchant named, its history", async () => {
    const a = approved[0]!;
    const page = await signedIn(bank.owner);
    await page.goto(`${t.url}/dashboard/decisions?customerId=${a.customerId}`);
    await page.getByRole('table', { name: 'Customer decisions, page 1' }).getByRole('link', { name: a.decisionId }).click();
    await page.getByRole('heading', { level: 1, name: `Decision ${a.decisionId}` }).waitFor();
    expect(page.url()).toContain(`/dashboard/decisions/${a.decisionId}`);
    const facts = page.locator('dl.facts');
    await facts.getByText('approve once').waitFor();
    await facts.getByText(a.email).waitFor();
    await facts.getByText(merchant.party.name, { exact: true }).waitFor();
    await page
      .getByRole('table', { name: `Versions of ${a.decisionId}` })
      .getByRole('row')
      .nth(1)
      .waitFor();
    await page
      .getByRole('table', { name: 'Schedules under this decision' })
      .or(page.getByText('No recurring schedules under this decision.'))
      .waitFor();
    await check(page, 'bank decision page');
    await screenshot(page, 'decision-desktop');

    // Changed on its page: the history grows.
    await page.getByLabel('New decision').selectOption('suspended');
    await page.getByRole('button', { name: 'Save decision' }).click();
    await facts.getByText('suspended').waitFor();
    await expectRows(page, `Versions of ${a.decisionId}`, 2);

    await openPage(page, 'Home');
    await search(page, a.decisionId);
    await page.getByRole('heading', { level: 1, name: `Decision ${a.decisionId}` }).waitFor();

    // Another customer's consents (DESIGN 10.5), from its decision's page: what the merchant may still take, revoked there.
    const c = approved[2]!;
    await page.goto(`${t.url}/dashboard/decisions/${c.decisionId}`);
    await page.locator('dl.facts').getByRole('link', { name: 'all consents' }).click();
    await page.getByRole('heading', { level: 1, name: `Customer ${c.customerId}` }).waitFor();
    await expectRows(page, 'What each merchant may still take', 1);
    await dataRows(page, 'What each merchant may still take').getByText('No limits').waitFor();
    await check(page, 'bank customer consents page');
    await page.getByRole('button', { name: `Revoke ${merchant.party.name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('No merchant may bill this customer.').waitFor();
    const revoked = await t.call('GET', `/v1/customer-decisions/${c.decisionId}`, { key: merchant.party.apiKey });
    expect(revoked.body.data.decision).toBe('deny');
    await page.context().close();

    // At 375 px.
    const phone = await signedIn(bank.owner, PHONE);
    await phone.goto(`${t.url}/dashboard/decisions/${a.decisionId}`);
    await phone.getByRole('heading', { level: 1, name: `Decision ${a.decisionId}` }).waitFor();
    await phone.locator('dl.facts').getByText(a.email).waitFor();
    await check(phone, 'bank decision page at 375 px');
    await phone.context().close();
  });

  it("a merchant's schedule page from its list and from Search: terms, the customer named, its runs linked; its decision's page", async () => {
    const provider = await t.participant('provider');
    const m = await ownedBy(t, 'merchant', { providerId: provider.id });
    // Recurring billing needs premium trust, which the operator lets this provider grant.
    expect(
      (await t.call('PATCH', `/v1/operator/providers/${provider.id}`, { key: t.operatorKey, body: { maxTrustLevel: 'premium' } })).status,
    ).toBe(200);
    expect(
      (
        await t.call('PATCH', '/v1/provider/merchant/trust', {
          key: provider.apiKey,
          body: { entityId: m.party.id, trusted: true, trustLevel: 'premium' },
        })
      ).status,
    ).toBe(200);
    const a = await agreement(t, { merchant: m.party, decision: 'approve_recurring' });
    const scheduleId = await newSchedule(t, a, { description: 'Gym membership, gold' });
    // One run now (the sandbox helper makes it due; the tick runs it).
    expect((await t.call('POST', `/v1/sandbox/recurring/${scheduleId}/run`, { key: m.party.apiKey })).status).toBe(200);
    let runs: Record<string, unknown>[] = [];
    for (let i = 0; i < 40 && runs.length === 0; i++) {
      await t.app.tick(new Date());
      await t.app.settle();
      runs = (await t.call('GET', `/v1/recurring/${scheduleId}`, { key: m.party.apiKey })).body.data.runs;
    }
    expect(runs).toHaveLength(1);
    const run = runs[0] as { reference: string; scheduleId: string; type: string };
    expect(run).toMatchObject({ scheduleId, type: 'recurring' });

    const page = await signedIn(m.owner);
    await openPage(page, 'Schedules');
    const row = dataRows(page, /^Recurring schedules/).filter({ hasText: scheduleId });
    // The customer's name and e-mail beside its id.
    await row.getByText(a.email).waitFor();
    await row.getByText(/^Ada Obi\d+$/).waitFor();
    await row.getByRole('link', { name: scheduleId }).click();
    await page.getByRole('heading', { level: 1, name: `Schedule ${scheduleId}` }).waitFor();
    expect(page.url()).toContain(`/dashboard/schedules/${scheduleId}`);
    const facts = page.locator('dl.facts');
    await facts.getByText('Gym membership, gold').waitFor();
    await facts.getByText(a.email).waitFor();
    const runRows = page.getByRole('table', { name: `Latest runs of ${scheduleId}` });
    await runRows.getByRole('link', { name: run.reference }).waitFor();
    await check(page, 'schedule page');
    await screenshot(page, 'schedule-desktop');
    // A run opens its transaction, whose schedule links back.
    await runRows.getByRole('link', { name: run.reference }).click();
    await page.getByRole('heading', { level: 1, name: `Transaction ${run.reference}` }).waitFor();
    await page.locator('dl.facts').getByRole('link', { name: scheduleId }).click();
    await page.getByRole('heading', { level: 1, name: `Schedule ${scheduleId}` }).waitFor();

    // From Search.
    await openPage(page, 'Home');
    await search(page, scheduleId);
    await page.getByRole('heading', { level: 1, name: `Schedule ${scheduleId}` }).waitFor();
    // The merchant's decision page from Search: its schedule listed and linked.
    await search(page, a.decisionId);
    await page.getByRole('heading', { level: 1, name: `Decision ${a.decisionId}` }).waitFor();
    await page.locator('dl.facts').getByText('approve recurring').waitFor();
    await page.getByRole('table', { name: 'Schedules under this decision' }).getByRole('link', { name: scheduleId }).waitFor();
    await check(page, 'merchant decision page');
    await page.context().close();

    const phone = await signedIn(m.owner, PHONE);
    await phone.goto(`${t.url}/dashboard/schedules/${scheduleId}`);
    await phone.getByRole('heading', { level: 1, name: `Schedule ${scheduleId}` }).waitFor();
    await phone.getByRole('table', { name: `Latest runs of ${scheduleId}` }).waitFor();
    await check(phone, 'schedule page at 375 px');
    await phone.context().close();
  });

  it("a bank finds its customer's transaction and opens that customer's transactions from it", async () => {
    const a = approved[1]!;
    const b = await bill(t, merchant.party, [a.agreementPhrase], 1_250, { description: 'Lists lamp' });
    expect(b.status).toBe(201);
    expect((await bankResponse(t, bank.party, b.body[0].billingRequestId, 'approve_once')).status).toBe(200);
    const page = await signedIn(bank.owner);
    await search(page, b.body[0].reference);
    await page.getByRole('heading', { level: 1, name: `Transaction ${b.body[0].reference}` }).waitFor();
    await page.locator('dl.facts').getByRole('link', { name: a.customerId }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    expect(page.url()).toContain(`customerId=${a.customerId}`);
    await dataRows(page, /^Transactions, page 1/)
      .filter({ hasText: 'Lists lamp' })
      .waitFor();
    await page.context().close();
  });
});
