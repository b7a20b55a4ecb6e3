/**
 * The dashboard on the live stage: an application sent from the dashboard waits;
 * the operator, signed in with the operator key, approves it on the Applications page; the
 * applicant's dashboard then opens as the new participant's owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { signUpAndIn } from '../support/people';
import { expectAccessible, launch, newPage, openPage, screenshot, signInThroughForm } from '../support/browser';

let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  t = await startTestApp({ STAGE: 'live' });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe('dashboard (live): the operator approves an application', () => {
  it('applicant applies -> pending -> operator approves on Applications -> the applicant opens the dashboard as owner', async () => {
    const who = await signUpAndIn();
    const { page: applicant } = await newPage(browser);
    await applicant.goto(`${t.url}/dashboard/`);
    await applicant.getByText('Live', { exact: true }).waitFor();
    await applicant.getByLabel('Email').fill(who.email);
    await applicant.getByLabel('Password').fill(who.password);
    await applicant.getByRole('button', { name: 'Sign in', exact: true }).click();
    await applicant.getByText('Our team reviews live applications.').waitFor();
    await applicant.getByLabel('Business type').selectOption('provider');
    await applicant.getByLabel('Business name').fill('Paystack Lagos Live');
    await applicant.getByLabel('Registration number').fill('RC998877');
    await applicant.getByLabel('Address').fill('3 Broad Street');
    await applicant.getByLabel('City').fill('Lagos');
    await applicant.getByRole('button', { name: 'Send application' }).click();
    await applicant
      .getByTestId('application-status')
      .filter({ hasText: /^pending$/ })
      .waitFor();

    // The operator's queue.
    const { page: operator } = await newPage(browser);
    await operator.goto(`${t.url}/dashboard/`);
    await operator.getByText('Operator sign-in').click();
    await operator.getByLabel('Operator key').fill(t.operatorKey);
    await operator.getByRole('button', { name: 'Sign in as operator' }).click();
    await openPage(operator, 'Applications');
    const row = operator.getByRole('table', { name: 'Applications (pending)' }).getByRole('row').filter({ hasText: 'Paystack Lagos Live' });
    await row.waitFor();
    await expectAccessible(operator, 'operator applications');
    await screenshot(operator, 'applications-desktop');
    await row.getByRole('button', { name: 'Approve' }).click();
    await operator.getByText('No pending applications.').waitFor();
    await operator.getByLabel('Status').selectOption('approved');
    await operator
      .getByRole('table', { name: 'Applications (approved)' })
      .getByRole('row')
      .filter({ hasText: 'Paystack Lagos Live' })
      .waitFor();

    // The applicant: approved, and now the provider's owner.
    await applicant.getByRole('button', { name: 'Check again' }).click();
    await applicant
      .getByTestId('application-status')
      .filter({ hasText: /^approved$/ })
      .waitFor();
    await applicant.getByRole('button', { name: 'Open the dashboard' }).click();
    await applicant.getByText('Role: owner').waitFor();
    expect(await applicant.getByRole('navigation').getByRole('link').allTextContents()).toEqual([
      'Home',
      'API keys',
      'Webhooks',
      'Events',
      'Transactions',
      'Merchants',
      'Team',
      'Audit log',
    ]);
    await expectAccessible(applicant, 'live home');

    // A fresh sign-in lands on the dashboard directly.
    const { page: again } = await newPage(browser);
    await signInThroughForm(again, t.url, who.email, who.password);
    await again.getByText('Role: owner').waitFor();
  });
});
