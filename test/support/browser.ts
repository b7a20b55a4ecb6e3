/**
 * The dashboard's browser tests: Debian's Chromium driven by playwright-core,
 * against the local stack's server (which serves the built app at /dashboard/), with an
 * axe-core check of every page visited. Chromium runs headless with the flags this machine's
 * closed network needs (no background connections to Google's hosts).
 */
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createSign } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, onTestFailed } from 'vitest';
import { withAppAndReceiver, type TestApp } from './app';
import type { Receiver } from '../../local/receiver';
import type { Party } from './flows';
import { newEmail, personCaller, signUpAndIn, type SignedIn } from './people';

export { totp } from './people';

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
/**
 * A browser test is a person's whole errand (many pages, each awaited for up to 15 s): its
 * budget, for the files to set with `vi.setConfig` (the project's default is 60 s, which a
 * busy machine running two such files at once overruns).
 */
export const BROWSER_TEST_TIMEOUT_MS = 180_000;
/**
 * How long one wait in a browser test (a page to arrive, a title, a selector) may take: as
 * long as a shared 2-core machine running other suites beside it needs (a /docs render took
 * over 30 s under CI's load), bounded so the error still names what never came before the
 * test's own budget runs out.
 */
export const BROWSER_WAIT_MS = 90_000;
export const PHONE = { width: 375, height: 740 };

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/** What a dashboard test file runs against: the stack, its webhook receiver and the browser. */
export interface DashboardStack {
  t: TestApp;
  rx: Receiver;
  browser: Browser;
}

/**
 * A dashboard test file's setup, in one place: the local stack with a receiver, one attempt
 * per delivery (a test event to a failing receiver is one failed delivery, at once), and the
 * browser (failures leave screenshots under test-results/<dir>/). `ready` gets all three.
 */
export function withDashboardStack(dir: string, ready: (stack: DashboardStack) => void): void {
  let app: TestApp;
  let receiver: Receiver;
  withAppAndReceiver(
    (a, r) => {
      app = a;
      receiver = r;
    },
    { WEBHOOK_MAX_ATTEMPTS: '1' },
  );
  withBrowser(dir, (browser) => ready({ t: app, rx: receiver, browser }));
}

/**
 * The file's browser: launched before its tests (`ready` gets it), closed after them. A failed
 * test leaves what its pages showed: screenshots and text under test-results/<dir>/.
 */
export function withBrowser(dir: string, ready: (browser: Browser) => void): void {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launch();
    ready(browser);
  });
  beforeEach(() => {
    onTestFailed(async ({ task }) => {
      const out = join(process.cwd(), 'test-results', dir);
      mkdirSync(out, { recursive: true });
      let i = 0;
      for (const context of browser?.contexts() ?? []) {
        for (const p of context.pages()) {
          const name = `${task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}-${i++}`;
          await p.screenshot({ path: join(out, `${name}.png`), fullPage: true }).catch(() => undefined);
          writeFileSync(
            join(out, `${name}.txt`),
            `${p.url()}\n${await p
              .locator('body')
              .innerText()
              .catch(() => '')}`,
          );
        }
        // Its pages would only weigh on the tests after it.
        await context.close().catch(() => undefined);
      }
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
}

/** axe-core's browser build (the one @axe-core/playwright injects). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'Europe/London' });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  // axe-core loads with every document of the context (expectAccessible runs it): injecting
  // its ~500 KB into the page at each check, as AxeBuilder does, took 2-5 s a check on this
  // machine, the run itself ~0.3 s.
  await context.addInitScript(AXE_SOURCE);
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

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's violations on the page as it is now (the WCAG 2.0/2.1 A and AA rules and best
 * practice), from the copy loaded with the page (newPage), or, on a page without one, through
 * AxeBuilder (which injects it).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const found = await page.evaluate(async (tags) => {
    const axe = (globalThis as { axe?: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    if (!axe) return undefined;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: tags } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  }, AXE_TAGS);
  return found ?? (await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze()).violations;
}

/** No serious or critical axe-core violation on the page as it is now (DESIGN 8.4). */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const bad = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
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

/**
 * Page content fits 375 px: nothing wider than the viewport but the tables' own scroll regions.
 * A failure names the culprits: elements past the right edge outside a scroll region, or
 * positioned ones (which escape a region that is not their containing block).
 */
export async function expectFitsWidth(page: Page, label: string): Promise<void> {
  const found = await page.evaluate(() => {
    const w = globalThis as unknown as { document: any; getComputedStyle(el: unknown): { position: string } };
    const root = w.document.documentElement;
    const width = root.clientWidth;
    const wide: string[] = [];
    for (const el of w.document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.right <= width + 0.5) continue;
      if (el.parentElement?.closest('.table-scroll, .json') && w.getComputedStyle(el).position !== 'absolute') continue;
      wide.push(`${el.tagName.toLowerCase()}${el.className ? `.${el.className}` : ''} (${Math.round(r.right)} px)`);
    }
    return { overflow: root.scrollWidth - width, wide: wide.slice(0, 5) };
  });
  expect(found.overflow, `horizontal overflow on ${label}: ${found.wide.join(', ')}`).toBeLessThanOrEqual(0);
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

/** Until the page's first `Loading…` is gone (if it shows one). */
async function loaded(page: Page): Promise<void> {
  await page
    .getByRole('status')
    .filter({ hasText: 'Loading' })
    .first()
    .waitFor({ state: 'detached' })
    .catch(() => undefined);
}

/** On a phone the menu folds behind `Menu` (DESIGN 10.7): unfolds it when folded. */
export async function unfoldMenu(page: Page): Promise<void> {
  const toggle = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Menu' });
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
}

/** The menu's links (unfolded first on a phone). */
export async function menuLinks(page: Page): Promise<string[]> {
  await unfoldMenu(page);
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
}

export async function openPage(page: Page, link: string): Promise<void> {
  await unfoldMenu(page);
  await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link === 'Home' ? 'Home' : link }).waitFor();
  await loaded(page);
}

/** A new page of its own browser context, signed in as `who` through the form, its menu shown. */
export async function signedInPage(browser: Browser, baseUrl: string, who: SignedIn, viewport = DESKTOP): Promise<Page> {
  const { page } = await newPage(browser, viewport);
  await signInThroughForm(page, baseUrl, who.email, who.password);
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  return page;
}

/** The page once loaded (no `Loading…` left): axe-clean and no wider than its viewport. */
export async function checkPage(page: Page, label: string): Promise<void> {
  await loaded(page);
  await expectAccessible(page, label);
  await expectFitsWidth(page, label);
}

/** Types `q` into the header's Search field and sends it. */
export async function searchFor(page: Page, q: string): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search' }).fill(q);
  await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
}

/**
 * `accessToken` as it will be once expired: the same claims with `exp` in the past, signed
 * with the emulator's own key (cognito-local ships it), so only the expiry is wrong.
 */
export function expiredCopyOf(accessToken: string): string {
  const pem = (
    JSON.parse(
      readFileSync(
        join(dirname(createRequire(import.meta.url).resolve('cognito-local/package.json')), 'lib', 'keys', 'cognitoLocal.private.json'),
        'utf8',
      ),
    ) as { pem: string }
  ).pem;
  const [header, payload] = accessToken
    .split('.')
    .slice(0, 2)
    .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
  const now = Math.floor(Date.now() / 1000);
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const data = `${part(header)}.${part({ ...payload, iat: now - 7200, auth_time: now - 7200, exp: now - 3600 })}`;
  return `${data}.${createSign('RSA-SHA256').update(data).sign(pem).toString('base64url')}`;
}

type Session = { type: 'person'; email: string; tokens: { accessToken: string; refreshToken?: string; expiresAt: number } };
type Storage = { localStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void } };

/** The signed-in person's session as the dashboard keeps it (localStorage, shared by every tab). */
export async function storedSession(page: Page): Promise<Session> {
  const raw = await page.evaluate(() => (globalThis as unknown as Storage).localStorage.getItem('idpay.session'));
  expect(raw, 'a stored session').toBeTruthy();
  return JSON.parse(raw!);
}

/** Replaces the stored session's tokens (as another tab, or time, would). */
export async function storeTokens(page: Page, session: Session, tokens: Partial<Session['tokens']>): Promise<void> {
  const value = JSON.stringify({ ...session, tokens: { ...session.tokens, ...tokens } });
  await page.evaluate((v) => (globalThis as unknown as Storage).localStorage.setItem('idpay.session', v), value);
}

/** After a navigation: the tab's title is the page's, and focus is on its heading. */
export async function expectArrivedAt(page: Page, title: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  await expect.poll(() => page.title(), { timeout: BROWSER_WAIT_MS }).toBe(`${title} · idpay dashboard`);
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const el = (globalThis as unknown as { document: { activeElement: { tagName: string; textContent: string } | null } }).document
            .activeElement;
          return el ? `${el.tagName} ${el.textContent}` : '';
        }),
      { timeout: BROWSER_WAIT_MS },
    )
    .toBe(`H1 ${title}`);
}

/** A participant created by the operator whose first owner is a signed-up person (they accepted its invitation). */
export async function ownedBy(
  t: TestApp,
  type: 'bank' | 'merchant' | 'provider',
  extra: Record<string, unknown> = {},
): Promise<{ party: Party; owner: SignedIn }> {
  const owner = await signUpAndIn();
  const r = await t.call('POST', '/v1/operator/participants', {
    key: t.operatorKey,
    body: { type, name: `${type} ${owner.email}`, email: newEmail(type), ownerEmail: owner.email, ...extra },
  });
  expect(r.status).toBe(201);
  const accepted = await personCaller(t, owner)('POST', `/v1/team/invitations/${r.body.data.invitation.token}/accept`);
  expect(accepted.status).toBe(200);
  return { party: { id: r.body.data.id, apiKey: r.body.data.apiKey, name: r.body.data.name, email: r.body.data.email }, owner };
}
