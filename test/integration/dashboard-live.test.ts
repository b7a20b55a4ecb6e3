/**
 * The dashboard on the live stage (DESIGN 9.7): an application sent from the
 * dashboard waits; the operator, signed in with the operator key, approves it on the
 * Applications page; the applicant, now the participant's owner, sets up an authenticator
 * app (Cognito software-token MFA) before any page opens, and signs in with its code after.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { signUpAndIn } from '../support/people';
import {
  BROWSER_TEST_TIMEOUT_MS,
  expectAccessible,
  expectArrivedAt,
  newPage,
  openPage,
  screenshot,
  totp,
  withBrowser,
  menuLinks,
} from '../support/browser';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STAGE: 'live' });
});
afterAll(async () => {
  await t?.stop();
});
let browser: Browser;
withBrowser('dashboard-live', (b) => {
  browser = b;
});

/** Signs in through the form on the live stage (no wait for the menu: an applicant has none). */
async function signInAs(page: Page, email: string, password: string) {
  await page.goto(`${t.url}/dashboard/`);
  await page.getByText('Live', { exact: true }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('dashboard (live): the operator approves an application; owners sign in with TOTP', () => {
  it('applicant applies -> pending -> operator approves -> the new owner sets up TOTP, then signs in with it', async () => {
    const who = await signUpAndIn();
    const { page: applicant } = await newPage(browser);
    await signInAs(applicant, who.email, who.password);
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

    // A live owner sets up the authenticator app before any page opens (DESIGN 9.7).
    await expectArrivedAt(applicant, 'Security');
    expect(await applicant.getByRole('navigation').count()).toBe(0);
    await applicant.getByRole('alert').filter({ hasText: 'Owners and admins sign in to the live dashboard' }).waitFor();
    await expectAccessible(applicant, 'security (required)');
    await applicant.getByRole('button', { name: 'Set up authenticator app' }).click();
    await applicant.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await applicant.getByTestId('totp-secret').textContent())!;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expectAccessible(applicant, 'security (set-up)');
    await screenshot(applicant, 'security-setup-desktop');
    await applicant.getByLabel('Code from the app').fill(totp(secret, Date.now() - 90_000)); // a stale code is refused
    await applicant.getByRole('button', { name: 'Turn on' }).click();
    // Cognito's reason, in the form (the gate's own notice is an alert too).
    await applicant.getByRole('form', { name: 'Verify authenticator app' }).getByRole('alert').waitFor();
    expect(await applicant.getByRole('navigation').count()).toBe(0);
    await applicant.getByLabel('Code from the app').fill(totp(secret));
    await applicant.getByRole('button', { name: 'Turn on' }).click();

    await applicant.getByRole('navigation').waitFor();
    await applicant.getByText('Role: owner').waitFor();
    expect(await menuLinks(applicant)).toEqual([
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
    await applicant.getByRole('link', { name: 'Security' }).click();
    await expectArrivedAt(applicant, 'Security');
    await applicant.getByTestId('mfa-status').filter({ hasText: /^On:/ }).waitFor();
    expect(await applicant.getByRole('button', { name: 'Turn off' }).count()).toBe(0);

    // A fresh sign-in asks for the app's code: a wrong one gets Cognito's reason, the right one opens the dashboard.
    const { page: again } = await newPage(browser);
    await again.goto(`${t.url}/dashboard/`);
    await again.getByLabel('Email').fill(who.email);
    await again.getByLabel('Password').fill(who.password);
    await again.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectArrivedAt(again, 'Two-step verification');
    await expectAccessible(again, 'sign-in: authentication code');
    await screenshot(again, 'sign-in-mfa-desktop');
    const wrong = String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
    await again.getByLabel('Authentication code').fill(wrong);
    await again.getByRole('button', { name: 'Verify' }).click();
    await again.getByRole('alert').waitFor();
    expect(await again.getByRole('navigation').count()).toBe(0);
    await again.getByLabel('Authentication code').fill(totp(secret));
    await again.getByRole('button', { name: 'Verify' }).click();
    await again.getByText('Role: owner').waitFor();
    await again.getByRole('navigation').waitFor();
  });

  it('a second application from another browser is refused while one is pending (waits for the API: 409)', async () => {
    const who = await signUpAndIn();
    const apply = async () => {
      const { page } = await newPage(browser);
      await signInAs(page, who.email, who.password);
      await page.getByRole('heading', { name: 'Apply to idpay' }).waitFor();
      await page.getByLabel('Business name').fill('Twice Ltd');
      await page.getByLabel('Registration number').fill('RC55501');
      await page.getByLabel('Address').fill('5 Broad Street');
      await page.getByLabel('City').fill('Lagos');
      await page.getByRole('button', { name: 'Send application' }).click();
      return page;
    };
    const first = await apply();
    await first
      .getByTestId('application-status')
      .filter({ hasText: /^pending$/ })
      .waitFor();
    // Another browser (its own storage) knows nothing of the first: the API refuses the second.
    const second = await apply();
    await second.getByRole('alert').filter({ hasText: 'An application is already pending' }).waitFor();
    const pending = await t.call('GET', '/v1/operator/applications', { key: t.operatorKey, query: { status: 'pending', limit: 100 } });
    expect(pending.body.data.applications.filter((a: { businessName: string }) => a.businessName === 'Twice Ltd')).toHaveLength(1);
  });
});
