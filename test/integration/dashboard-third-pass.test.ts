/**
 * The dashboard, third pass (DESIGN 10.7, issue 54) in Debian's Chromium against the local
 * stack, seeded once (a merchant with an owner, an admin and a developer, a billed and disputed
 * transaction, a failing endpoint): each test walks one numbered item of the issue with few
 * page loads, at 375 px or 1280 px, with axe on the pages and on the dialogs it opens.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { TestApp } from '../support/app';
import type { Receiver } from '../../local/receiver';
import { readMail } from '../../local/mail';
import { agreement, bankResponse, bill, type Agreement, type Party } from '../support/flows';
import { applicationBody, newEmail, personCaller, signUpAndIn, totp, turnOnTotp, type SignedIn } from '../support/people';
import {
  BROWSER_TEST_TIMEOUT_MS,
  checkPage,
  DESKTOP,
  PHONE,
  expectAccessible,
  newPage,
  openPage,
  ownedBy,
  screenshot,
  searchFor,
  signedInPage,
  withDashboardStack,
} from '../support/browser';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

let t: TestApp;
let rx: Receiver;
let browser: Browser;
withDashboardStack('dashboard-third-pass', (stack) => ({ t, rx, browser } = stack));

const signedIn = (who: SignedIn, viewport = DESKTOP): Promise<Page> => signedInPage(browser, t.url, who, viewport);

let merchant: Party;
let owner: SignedIn;
let admin: SignedIn;
let developer: SignedIn;
let a: Agreement;
let reference: string;
let disputeId: string;
let endpointId: string;
let failingPath: string;

/** Joins `who` to the merchant with `role` (the owner invites, they accept). */
async function join(who: SignedIn, role: string) {
  const inv = await personCaller(t, owner, merchant.id)('POST', '/v1/team/invitations', { body: { email: who.email, role } });
  expect(inv.status).toBe(201);
  expect((await personCaller(t, who)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`)).status).toBe(200);
}

beforeAll(async () => {
  const made = await ownedBy(t, 'merchant');
  merchant = made.party;
  owner = made.owner;
  [admin, developer] = [await signUpAndIn(), await signUpAndIn()];
  await join(admin, 'admin');
  await join(developer, 'developer');
  a = await agreement(t, { merchant });
  const b = await bill(t, merchant, [a.agreementPhrase], 2_500, { description: 'Order 1003 brass lamp' });
  expect(b.status).toBe(201);
  reference = b.body[0].reference;
  expect((await bankResponse(t, a.bank, b.body[0].billingRequestId, 'approve_once')).status).toBe(200);
  // 500.00 of it disputed: what is left to refund is 2,000.00.
  const d = await t.call('POST', '/v1/bank/disputes', { key: a.bank.apiKey, body: { reference, reason: 'duplicate', amount: 500 } });
  expect(d.status).toBe(201);
  disputeId = d.body.data.disputeId;
  // An endpoint that answers 500, with one failed delivery.
  const { url, path } = rx.endpointUrl('third-pass');
  failingPath = path;
  rx.respond(path, { status: 500, body: 'down' });
  const ep = await t.call('POST', '/v1/webhooks/endpoints', { key: merchant.apiKey, body: { url } });
  expect(ep.status).toBe(201);
  endpointId = ep.body.data.id;
  expect((await t.call('POST', `/v1/webhooks/endpoints/${endpointId}/test`, { key: merchant.apiKey })).status).toBe(202);
  await rx.waitFor(path, (reqs) => reqs.length >= 1);
  await t.app.settle();
}, 180_000);

/** The same page again at 1280 px (axe and width), its screenshot `name`, and back to 375 px. */
async function atDesktop(page: Page, label: string, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await checkPage(page, `${label} at 1280 px`);
  await screenshot(page, name);
  await page.setViewportSize(PHONE);
}

/** The element that has focus, as `TAG text`. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: { tagName: string; textContent: string } | null } }).document
      .activeElement;
    return el ? `${el.tagName} ${el.textContent?.trim()}` : '';
  });

/**
 * Opens a confirmation with `opener`: a dialog named `title`, focus on `Cancel`, axe-clean;
 * `Cancel` closes it, changes nothing and gives focus back to `opener`; opened again, the dialog
 * is returned for its `Confirm`.
 */
async function confirmDialog(page: Page, opener: Locator, title: string | RegExp): Promise<Locator> {
  await opener.click();
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  await expect.poll(() => focused(page)).toBe('BUTTON Cancel');
  await expectAccessible(page, `dialog ${title}`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await opener.evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement)).toBe(true);
  await opener.click();
  await dialog.waitFor();
  return dialog;
}

describe('dashboard, third pass (DESIGN 10.7)', () => {
  it('2: the refund amount is checked under the field before any dialog; the whole remainder leaves out what is disputed; the form clears after success', async () => {
    const page = await signedIn(owner, PHONE);
    await page.goto(`${t.url}/dashboard/transactions/${reference}`);
    await page.getByRole('heading', { level: 1, name: `Transaction ${reference}` }).waitFor();
    const amount = page.getByLabel('Refund amount (NGN)');
    const refund = page.getByRole('button', { name: 'Refund', exact: true });
    for (const bad of ['abc', '0', '-5', '2000.01', '1.234']) {
      await amount.fill(bad);
      await refund.click();
      await page.getByText('Enter an amount up to ₦2,000.00').waitFor();
      expect(await page.getByRole('dialog').count(), bad).toBe(0);
      expect(await amount.getAttribute('aria-invalid'), bad).toBe('true');
    }
    await checkPage(page, 'refund amount refused at 375 px');
    await screenshot(page, 'refund-refused-375');
    await amount.fill('');
    await refund.click();
    const dialog = page.getByRole('dialog', { name: 'Refund this transaction?' });
    await dialog.getByText('the whole remainder, ₦2,000.00').waitFor();
    await expectAccessible(page, 'refund dialog at 375 px');
    await screenshot(page, 'refund-dialog-375');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await amount.fill('10');
    await refund.click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(/^Refund rfd_\S+ of ₦10\.00 is/).waitFor();
    // Cleared: a second click asks again for the whole remainder, now 1,990.00; it refunds nothing more without Confirm.
    expect(await amount.inputValue()).toBe('');
    await refund.click();
    await dialog.getByText('the whole remainder, ₦1,990.00').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await t.call('GET', '/v1/transaction-details', { key: merchant.apiKey, query: { reference } })).body.data.refunds).toHaveLength(
      1,
    );
    await page.context().close();
  });

  it('5: rotate a secret, replay all failed, withdraw an invitation and change a role ask first (focus on Cancel, back on the opener); turning off two-factor authentication asks for a code', async () => {
    const page = await signedIn(owner);
    await openPage(page, 'Webhooks');
    const rotate = page.getByRole('button', { name: 'Rotate secret' });
    (await confirmDialog(page, rotate, 'Rotate the signing secret?')).getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(/^New signing secret of/).waitFor();
    const replayAll = page.getByRole('button', { name: 'Replay all failed' });
    await replayAll.waitFor();
    (await confirmDialog(page, replayAll, 'Replay every failed delivery on this page?')).getByRole('button', { name: 'Confirm' }).click();
    // Replayed: the receiver is called a second time.
    await rx.waitFor(failingPath, (reqs) => reqs.length >= 2);

    const invitee = newEmail('withdrawn');
    expect(
      (await personCaller(t, owner, merchant.id)('POST', '/v1/team/invitations', { body: { email: invitee, role: 'viewer' } })).status,
    ).toBe(201);
    await openPage(page, 'Team');
    const withdraw = page.getByRole('button', { name: `Withdraw the invitation of ${invitee}` });
    (await confirmDialog(page, withdraw, 'Withdraw this invitation?')).getByRole('button', { name: 'Confirm' }).click();
    await withdraw.waitFor({ state: 'detached' });

    const devRow = page.getByRole('table', { name: 'Team members' }).getByRole('row').filter({ hasText: developer.email });
    await devRow.getByLabel('Role').selectOption('viewer');
    const save = devRow.getByRole('button', { name: 'Save role' });
    (await confirmDialog(page, save, 'Change this role?')).getByRole('button', { name: 'Confirm' }).click();
    await expect
      .poll(
        async () =>
          (await personCaller(t, owner, merchant.id)('GET', '/v1/team/members')).body.data.members.find(
            (m: { email: string }) => m.email === developer.email,
          )?.role,
      )
      .toBe('viewer');
    await page.context().close();

    // Two-factor authentication off: a dialog that asks for the app's code (and the password).
    const secret = await turnOnTotp(developer);
    const { page: p } = await newPage(browser, PHONE);
    await p.goto(`${t.url}/dashboard/security`);
    await p.getByLabel('Email').fill(developer.email);
    await p.getByLabel('Password').fill(developer.password);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByLabel('Authentication code').fill(totp(secret));
    await p.getByRole('button', { name: 'Verify' }).click();
    await p.getByTestId('mfa-status').filter({ hasText: /^On:/ }).waitFor();
    const off = p.getByRole('button', { name: 'Turn off' });
    const dialog = await confirmDialog(p, off, 'Turn off two-factor authentication?');
    await screenshot(p, 'turn-off-two-factor-375');
    await dialog.getByLabel('Password').fill(developer.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.getByText('Enter the 6-digit code.').waitFor();
    await p.getByTestId('mfa-status').filter({ hasText: /^On:/ }).waitFor();
    await dialog.getByLabel('Code from the app').fill(totp(secret));
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await p.getByTestId('mfa-status').filter({ hasText: /^Off:/ }).waitFor();
    await checkPage(p, 'security, turned off, at 375 px');
    await p.context().close();
  });

  it('8: Team offers an admin no owner role, and the only owner no control to remove or demote themself', async () => {
    const op = await signedIn(owner, PHONE);
    await openPage(op, 'Team');
    const rows = op.getByRole('table', { name: 'Team members' }).getByRole('row');
    const mine = rows.filter({ hasText: owner.email });
    await mine.waitFor();
    expect(await mine.getByRole('button').count()).toBe(0);
    expect(await mine.getByRole('combobox').count()).toBe(0);
    // The owner may give every role to others.
    expect(await rows.filter({ hasText: admin.email }).getByLabel('Role').locator('option').allTextContents()).toEqual([
      'owner',
      'admin',
      'developer',
      'viewer',
    ]);
    await checkPage(op, 'team of the only owner at 375 px');
    await screenshot(op, 'team-only-owner-375');
    await op.context().close();

    const ap = await signedIn(admin);
    await openPage(ap, 'Team');
    const other = ap.getByRole('table', { name: 'Team members' }).getByRole('row').filter({ hasText: developer.email });
    expect(await other.getByLabel('Role').locator('option').allTextContents()).toEqual(['admin', 'developer', 'viewer']);
    expect(await ap.getByRole('form', { name: 'Invite a person' }).getByLabel('Role').locator('option').allTextContents()).toEqual([
      'admin',
      'developer',
      'viewer',
    ]);
    // The owner's row offers an admin nothing (only an owner changes an owner).
    const ownerRow = ap.getByRole('table', { name: 'Team members' }).getByRole('row').filter({ hasText: owner.email });
    expect(await ownerRow.getByRole('button').count()).toBe(0);
    await ap.context().close();
  });

  it('9: sign-in tells no one which e-mails exist; the e-mail goes into Forgot password and comes from an invitation link; a withdrawn invitation says so; Operator sign-in is a link at the bottom', async () => {
    const { page } = await newPage(browser, PHONE);
    await page.goto(`${t.url}/dashboard/`);
    const alertText = async (email: string, password: string) => {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const text = (await alert.textContent())!;
      await page.getByLabel('Password').fill('');
      return text;
    };
    const unknown = await alertText(newEmail('nobody'), 'Some-password-1!');
    await page.reload();
    const wrong = await alertText(owner.email, 'Wrong-password-1!');
    expect(unknown).toBe(wrong);
    expect(unknown).toBe('Incorrect e-mail address or password.');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(owner.email);
    await page.getByRole('link', { name: 'Back to sign in' }).click();
    // Operator sign-in: a link below the sign-in form.
    const operator = page.getByRole('link', { name: 'Operator sign-in' });
    const [formBox, linkBox] = [await page.getByRole('form', { name: 'Sign in' }).boundingBox(), await operator.boundingBox()];
    expect(linkBox!.y).toBeGreaterThan(formBox!.y + formBox!.height);
    expect(await page.locator('details').count()).toBe(0);
    await checkPage(page, 'sign-in at 375 px');
    await screenshot(page, 'sign-in-operator-link-375');
    await operator.click();
    await page.getByLabel('Operator key').waitFor();

    // A withdrawn invitation: the link fills the e-mail; signed in, it says it was withdrawn.
    const stranger = await signUpAndIn();
    const inv = await personCaller(t, owner, merchant.id)('POST', '/v1/team/invitations', {
      body: { email: stranger.email, role: 'viewer' },
    });
    expect(inv.status).toBe(201);
    const link = readMail(t.app.mailDir).find((m) => m.to === stranger.email)!.link!;
    expect((await personCaller(t, owner, merchant.id)('DELETE', `/v1/team/invitations/${inv.body.data.invitationId}`)).status).toBe(200);
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(stranger.email);
    await page.getByLabel('Password').fill(stranger.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'This invitation was withdrawn' }).waitFor();
    expect(await page.getByText('invites').count()).toBe(0);
    await page.context().close();
  });

  it('1, 7: events and disputes open pages of their own; transactions show the customer e-mail; a dispute links its transaction', async () => {
    const history = await t.call('GET', '/v1/transaction-history', { key: merchant.apiKey });
    expect(history.body.data.transactions[0]).toMatchObject({ reference, customer: { email: a.email } });
    const page = await signedIn(owner, PHONE);
    await openPage(page, 'Transactions');
    const row = page.getByRole('table', { name: 'Transactions, page 1' }).getByRole('row').filter({ hasText: reference });
    await row.getByText(a.email).waitFor();
    await openPage(page, 'Events');
    const eventRow = page.getByRole('table', { name: 'Events, page 1' }).getByRole('row').filter({ hasText: 'webhook.test' });
    const eventId = (await eventRow.getByRole('cell').first().textContent())!.trim();
    await eventRow.getByRole('link', { name: 'View' }).click();
    await page.getByRole('heading', { level: 1, name: `Event ${eventId}` }).waitFor();
    expect(page.url()).toBe(`${t.url}/dashboard/events/${eventId}`);
    await checkPage(page, 'event page at 375 px');
    await screenshot(page, 'event-375');
    await atDesktop(page, 'event page', 'event-desktop');

    await openPage(page, 'Disputes');
    await page
      .getByRole('table', { name: 'Disputes, page 1' })
      .getByRole('row')
      .filter({ hasText: disputeId })
      .getByRole('link', { name: 'View' })
      .click();
    await page.getByRole('heading', { level: 1, name: `Dispute ${disputeId}` }).waitFor();
    expect(page.url()).toBe(`${t.url}/dashboard/disputes/${disputeId}`);
    await page.getByRole('form', { name: 'Respond to the dispute' }).waitFor();
    await checkPage(page, 'dispute page at 375 px');
    await screenshot(page, 'dispute-375');
    await atDesktop(page, 'dispute page', 'dispute-desktop');
    await page.getByRole('link', { name: reference }).click();
    await page.getByRole('heading', { level: 1, name: `Transaction ${reference}` }).waitFor();
    await page.getByText(a.email).first().waitFor();
    await page.context().close();
  });

  it('3: the header search finds a transaction by description words, an amount written either way and the start of its reference', async () => {
    const found = await t.call('GET', '/v1/search', { key: merchant.apiKey, query: { q: 'ORDER 1003' } });
    expect(found.body.data).toMatchObject({ results: [{ kind: 'transaction', id: reference }], complete: true });
    const page = await signedIn(owner, PHONE);
    const took: string[] = [];
    for (const q of ['order 1003', '2,500.00', '2500', reference.slice(0, 10)]) {
      const start = Date.now();
      await searchFor(page, q);
      await page.getByRole('heading', { level: 1, name: `Transaction ${reference}` }).waitFor();
      await page.getByText('Order 1003 brass lamp').waitFor();
      took.push(`${q}: ${Date.now() - start} ms`);
      await page.goBack();
    }
    // The timing the decision record reports (DESIGN 10.7 asks for 1 s at rest; this machine is rarely at rest).
    console.log(`[timing] header search to the transaction's page: ${took.join(', ')}`);
    await searchFor(page, 'no such words');
    await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
    await page.getByText('Nothing found.', { exact: false }).waitFor();
    await checkPage(page, 'search results at 375 px');
    await screenshot(page, 'search-nothing-375');
    await atDesktop(page, 'search results', 'search-nothing-desktop');
    await page.context().close();
  });

  it("6: the operator's Participants lists every participant (type and status filters, search, paging) beside the create form; the header Search finds them; Applications keeps its filter in the URL", async () => {
    const applied = applicationBody();
    const application = await personCaller(t, await signUpAndIn())('POST', '/v1/onboarding/applications', { body: applied });
    expect(application.status).toBe(201);
    // The API's type filter, search and paging: platform.test.ts (from the bundle); here the page.

    const { page } = await newPage(browser);
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole('link', { name: 'Operator sign-in' }).click();
    await page.getByLabel('Operator key').fill(t.operatorKey);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await openPage(page, 'Participants');
    const table = page.getByRole('table', { name: 'Participants, page 1' });
    await table.getByRole('row').nth(2).waitFor();
    await page.getByRole('group', { name: 'Pages' }).waitFor();
    await page.getByRole('form', { name: 'New participant' }).waitFor();
    await checkPage(page, 'participants (operator)');
    await screenshot(page, 'participants-desktop');
    await page.setViewportSize(PHONE);
    await checkPage(page, 'participants (operator) at 375 px');
    await screenshot(page, 'participants-375');
    await page.setViewportSize(DESKTOP);
    // The header's Search: by a part of the merchant's name, any case.
    await searchFor(page, merchant.name.toUpperCase().slice(0, 30));
    await page.getByRole('table', { name: 'Participants, page 1' }).getByText(merchant.id).waitFor();
    expect(page.url()).toContain('q=');
    // Its status (its key works), and the status filter, kept in the URL.
    const results = page.getByRole('table', { name: 'Participants, page 1' });
    await results.getByRole('row').filter({ hasText: merchant.id }).getByRole('cell', { name: 'active', exact: true }).waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('inactive');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No participant matches.').waitFor();
    expect(page.url()).toContain('status=inactive');
    await page.getByLabel('Status', { exact: true }).selectOption('active');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await results.getByText(merchant.id).waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption('bank');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No participant matches.').waitFor();
    // Applications: the status filter in the URL, kept on reload, with the pager.
    await openPage(page, 'Applications');
    await page.getByLabel('Status').selectOption('approved');
    await page.getByRole('table', { name: /^Applications \(approved\), page 1/ }).waitFor();
    expect(page.url()).toContain('status=approved');
    await page.reload();
    await page
      .getByRole('table', { name: /^Applications \(approved\), page 1/ })
      .getByText(applied.businessName)
      .waitFor();
    await page.getByRole('group', { name: 'Pages' }).waitFor();
    await checkPage(page, 'applications, approved (operator)');
    await screenshot(page, 'applications-paged-desktop');
    await page.context().close();
  });

  it('4, 10: a key is made with a role and an expiry, and the table shows role and creator; Get started is done; the chart has axes and values on focus; at 375 px the menu folds', async () => {
    const page = await signedIn(owner, PHONE);
    // 375 px: header and menu at most 20 % of the height; the menu behind `Menu`.
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.waitFor();
    const top = await page.evaluate(() => {
      const d = (globalThis as unknown as { document: any }).document;
      return Math.max(d.querySelector('header.top').getBoundingClientRect().bottom, d.querySelector('nav').getBoundingClientRect().bottom);
    });
    expect(top).toBeLessThanOrEqual(0.2 * PHONE.height);
    await menu.click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    const form = page.getByRole('form', { name: 'New API key' });
    expect(await form.getByLabel('Role').locator('option').allTextContents()).toEqual(['admin', 'developer', 'viewer']);
    await form.getByLabel('Key name').fill('reporting');
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByLabel('Expires in').selectOption('30');
    await form.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('shown-once').waitFor();
    expect(await form.getByLabel('Key name').inputValue()).toBe('');
    const keyRow = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'reporting' });
    await keyRow.getByRole('cell', { name: 'viewer', exact: true }).waitFor();
    await keyRow.getByText(owner.email).waitFor();
    const keys = (await personCaller(t, owner, merchant.id)('GET', '/v1/keys')).body.data.keys;
    const made = keys.find((k: { name: string }) => k.name === 'reporting');
    expect(made.role).toBe('viewer');
    expect(Date.parse(made.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    await checkPage(page, 'API keys at 375 px');
    await screenshot(page, 'keys-role-375');

    // Home: key, endpoint, test event and a bill are done, so Get started is gone.
    await menu.click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    const chart = page.getByRole('group', { name: /^Daily volume/ });
    await chart.waitFor();
    // The checklist shows while its four lists load, then goes (it stayed before: `Apply for live` was required).
    await expect.poll(() => page.getByRole('heading', { name: 'Get started' }).count(), { timeout: 30_000 }).toBe(0);
    await chart.getByText('Amount (₦)').waitFor();
    await chart.getByText('Day (Lagos)').waitFor();
    await page.locator('.chart .bar').last().focus();
    await page.getByTestId('chart-value').filter({ hasText: '₦2,500.00' }).waitFor();
    await checkPage(page, 'home at 375 px');
    await screenshot(page, 'home-third-pass-375');
    await page.context().close();
  });
});
