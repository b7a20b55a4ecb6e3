/**
 * The dashboard's browser tests: Debian's Chromium driven by playwright-core,
 * against the local stack's server (which serves the built app at /dashboard/), with an
 * axe-core check of every page visited. Chromium runs headless with the flags this machine's
 * closed network needs (no background connections to Google's hosts).
 */
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 740 };

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'Europe/London' });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  if (process.env.BROWSER_LOG === '1') {
    page.on('console', (m) => console.log(`[browser ${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => console.log(`[browser error] ${e.message}`));
    page.on('request', (r) => console.log(`[browser request] ${r.method()} ${r.url()}`));
    page.on('response', (r) => console.log(`[browser response] ${r.status()} ${r.url()}`));
    page.on('requestfailed', (r) => console.log(`[browser request failed] ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
  }
  return { context, page };
}

/** No serious or critical axe-core violation on the page as it is now (DESIGN 8.4). */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')}`,
    ),
    `axe on ${label}`,
  ).toEqual([]);
}

/** Page content fits 375 px: nothing wider than the viewport but the tables' own scroll regions. */
export async function expectFitsWidth(page: Page, label: string): Promise<void> {
  const overflow = await page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  expect(overflow, `horizontal overflow on ${label}`).toBeLessThanOrEqual(0);
}

/** `npm run dashboard:screenshots` sets SCREENSHOTS=1: the tests then save their pages under docs/dashboard/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  const dir = join(process.cwd(), 'docs', 'dashboard');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

export async function signInThroughForm(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation').waitFor();
}

export async function openPage(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link === 'Home' ? 'Home' : link }).waitFor();
  await page
    .getByRole('status')
    .filter({ hasText: 'Loading' })
    .first()
    .waitFor({ state: 'detached' })
    .catch(() => undefined);
}
