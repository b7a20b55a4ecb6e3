/**
 * GET /docs in a real browser: Debian's Chromium driven by Playwright (playwright-core from
 * npm, no downloaded browser) against the local stack. The page must render the API
 * reference from GET /v1/openapi.json with nothing fetched from another origin.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; CHROMIUM_PATH overrides the
 * path). Without it the test FAILS with that instruction: it never skips.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetHtml, type DocsPageAsset } from '../../scripts/openapi/docs-page';
import { routesFor } from '../../functions/routes';
import { startTestApp, type TestApp } from '../support/app';
import { BROWSER_TEST_TIMEOUT_MS, BROWSER_WAIT_MS, CHROMIUM } from '../support/browser';

const SCREENSHOT = resolve('test-results/docs.png');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const page = JSON.parse(readFileSync(resolve('functions/openapi/docs-page.json'), 'utf8')) as DocsPageAsset;

/** Raw HTTP GET (no automatic decompression, unlike fetch). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((res, rej) => {
    get(url, { headers }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => res({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }));
      r.on('error', rej);
    }).on('error', rej);
  });
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('GET /docs over HTTP', () => {
  it('serves the page brotli, gzip or plain as the client accepts, with CSP, ETag and X-Request-Id', async () => {
    const html = assetHtml(page);
    const br = await rawGet(`${t.url}/docs`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(br.headers['content-security-policy']).toContain("default-src 'none'");
    expect(br.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(br.headers['x-request-id']).toBeTruthy();
    expect(brotliDecompressSync(br.body).toString('utf8')).toBe(html);

    const gz = await rawGet(`${t.url}/docs`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString('utf8')).toBe(html);

    const plain = await rawGet(`${t.url}/docs`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toBe(html);
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);

    const again = await rawGet(`${t.url}/docs`, { 'if-none-match': String(br.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('GET /v1/openapi.json is the sandbox document, public, with every sandbox route', async () => {
    const r = await t.call('GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.body.openapi).toMatch(/^3\.1\./);
    for (const route of routesFor('sandbox')) expect(r.body.paths[route.path]?.[route.method.toLowerCase()], route.path).toBeDefined();
  });
});

describe('GET /docs in Chromium', () => {
  let context: BrowserContext | undefined;
  let profile: string | undefined;

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('renders the API reference with the endpoints, from this origin only', { timeout: BROWSER_TEST_TIMEOUT_MS }, async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}. The /docs browser test needs Debian's chromium: apt-get install -y chromium (or set CHROMIUM_PATH).`,
      );
    }
    profile = mkdtempSync(join(tmpdir(), 'docs-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
    });
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    const tab = context.pages()[0] ?? (await context.newPage());
    const origin = new URL(t.url).origin;
    const foreign: string[] = [];
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    // Anything that would reach the network for another origin is recorded and aborted (the
    // page must work offline). Requests the page's CSP refuses never get this far.
    await context.route(
      (url) => url.origin !== origin,
      (route) => {
        foreign.push(route.request().url());
        return route.abort();
      },
    );
    tab.on('pageerror', (e) => pageErrors.push(e.message));
    tab.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });

    const response = await tab.goto(`${t.url}/docs`, { waitUntil: 'domcontentloaded' });
    expect(response?.status()).toBe(200);
    await tab.waitForSelector('body[data-docs="ready"], body[data-docs="error"]', { timeout: BROWSER_WAIT_MS });
    expect(await tab.getAttribute('body', 'data-docs'), await tab.innerText('body')).toBe('ready');
    // Redoc renders the operations after the callback: wait for one, then read the page.
    await tab.locator('h2', { hasText: 'Bill customers with agreement phrases' }).first().waitFor({ timeout: BROWSER_WAIT_MS });
    const text = await tab.innerText('body');

    expect(text).toContain('idpay API (sandbox)');
    for (const summary of [
      'Create a bank, merchant or provider',
      'Create customers in a batch',
      'Send billing intents',
      'Bill customers with agreement phrases',
      "Set a merchant's trust",
      'Add a webhook endpoint',
      "The simulated bank's magic customers",
    ]) {
      expect(text, summary).toContain(summary);
    }
    for (const path of ['/v1/customer/bill', '/v1/billing/intent', '/v1/webhooks/endpoints', '/v1/recurring/{scheduleId}']) {
      expect(text, path).toContain(path);
    }
    // The webhooks section lists the events.
    for (const event of ['billing.intent', 'billing.response', 'refund.updated']) expect(text, event).toContain(event);

    mkdirSync(resolve('test-results'), { recursive: true });
    await tab.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    // One operation and one webhook event, as a reader would open them from the sidebar.
    for (const [anchor, file, heading] of [
      ['tag/Merchant/operation/merchantBill', 'docs-operation.png', 'Bill customers with agreement phrases'],
      ['tag/Webhook-events/operation/eventBillingResponse', 'docs-webhook.png', 'billing.response'],
    ] as const) {
      await tab.goto(`${t.url}/docs#${anchor}`);
      await tab.waitForSelector('body[data-docs="ready"]', { timeout: BROWSER_WAIT_MS });
      await tab.locator('h2', { hasText: heading }).first().waitFor({ timeout: BROWSER_WAIT_MS });
      await tab.waitForTimeout(300);
      await tab.screenshot({ path: resolve('test-results', file) });
    }

    expect(foreign, 'requests to other origins that reached the network').toEqual([]);
    expect(pageErrors, 'uncaught page errors').toEqual([]);
    // The only thing the CSP may refuse is Redoc's remote "Redocly" logo image.
    const logoRefused = (m: string) => m.includes("'https://cdn.redoc.ly/redoc/logo-mini.svg'") && m.includes('Content Security Policy');
    expect(
      consoleErrors.filter((m) => !logoRefused(m)),
      'console errors',
    ).toEqual([]);
  });
});
