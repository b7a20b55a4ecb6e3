/**
 * The GET /docs page (build time): one self-contained HTML file with Redoc's standalone
 * bundle inlined (installed from npm, exact version in package.json), which loads the
 * OpenAPI document from the same deployment (`v1/openapi.json`, relative to /docs). No
 * CDN, no web font, no other origin: the Content-Security-Policy sent with it allows the
 * page's own two scripts (by hash) and connections to its own origin only.
 *
 * The page does not depend on the stage, so it is built once and stored brotli-compressed
 * in docs-page.json, which the docs Lambda bundles (see scripts/openapi/build.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

export const RENDERER = { package: 'redoc', file: 'bundles/redoc.standalone.js' } as const;

export interface Renderer {
  package: string;
  version: string;
  file: string;
  sha256: string;
  source: string;
}

/** Stored form of the page (functions/openapi/docs-page.json). */
export interface DocsPageAsset {
  renderer: { package: string; version: string; file: string; sha256: string };
  /** sha256 of the HTML (hex): the ETag. */
  sha256: string;
  bytes: number;
  /** The Content-Security-Policy header sent with the page. */
  csp: string;
  /** The HTML, brotli-compressed, base64. */
  brotli: string;
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const cspHash = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** The installed renderer (from node_modules). */
export function loadRenderer(): Renderer {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${RENDERER.package}/package.json`);
  const version = (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }).version;
  const source = readFileSync(join(dirname(pkgJson), RENDERER.file), 'utf8');
  return { package: RENDERER.package, version, file: RENDERER.file, sha256: sha256(source), source };
}

/**
 * Inline script text must not end its <script> element early: no `</script`, and no
 * `<script` while an HTML comment opener `<!--` is open (the parser's "double escaped"
 * state would then swallow our closing tag).
 */
export function assertInlineSafe(js: string): void {
  if (/<\/script/i.test(js)) throw new Error('Renderer bundle contains "</script": cannot be inlined');
  const lower = js.toLowerCase();
  let i = 0;
  for (;;) {
    const open = lower.indexOf('<!--', i);
    if (open < 0) return;
    const close = lower.indexOf('-->', open + 4);
    const end = close < 0 ? lower.length : close;
    if (lower.slice(open, end).includes('<script')) throw new Error('Renderer bundle has "<script" inside "<!--": cannot be inlined');
    if (close < 0) return;
    i = close + 3;
  }
}

/** Redoc options (https://redocly.com/docs/redoc/config): system fonts, nothing fetched but the document. */
const OPTIONS = {
  expandResponses: '200,201,202',
  requiredPropsFirst: true,
  pathInMiddlePanel: true,
  jsonSampleExpandLevel: 3,
  hideDownloadButton: false,
  theme: {
    colors: { primary: { main: '#1d5c8c' } },
    typography: {
      fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
      headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif' },
      code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace' },
    },
    sidebar: { width: '280px' },
  },
};

/**
 * Starts Redoc on the document served next to the page. `data-docs` on <body> tells a
 * browser test (and anyone curious) when rendering finished: `ready` or `error`.
 */
const BOOT = `(function () {
  var el = document.getElementById('docs');
  var specUrl = 'v1/openapi.json';
  function fail(message) {
    document.body.setAttribute('data-docs', 'error');
    el.textContent = 'The API reference could not be shown: ' + message + '. The OpenAPI document is at /v1/openapi.json.';
  }
  if (typeof Redoc === 'undefined') return fail('the renderer did not load');
  try {
    Redoc.init(specUrl, ${JSON.stringify(OPTIONS)}, el, function (err) {
      if (err) return fail(String(err && err.message || err));
      document.body.setAttribute('data-docs', 'ready');
      // An error's docUrl (/docs#error-<code>): its row exists once Redoc has rendered.
      var target = /^#error-[a-z0-9_]+$/.test(location.hash) && document.getElementById(location.hash.slice(1));
      if (target) target.scrollIntoView();
    });
  } catch (e) {
    fail(String(e && e.message || e));
  }
})();`;

export function buildDocsPage(renderer: Pick<Renderer, 'source' | 'package' | 'version'>): { html: string; csp: string } {
  assertInlineSafe(renderer.source);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${renderer.package} ${renderer.version}">
<title>idpay API reference</title>
<style>body{margin:0;padding:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}</style>
</head>
<body data-docs="loading">
<noscript><p style="padding:2rem">This page needs JavaScript. The OpenAPI document is at <a href="v1/openapi.json">/v1/openapi.json</a>.</p></noscript>
<div id="docs"></div>
<script>${renderer.source}</script>
<script>${BOOT}</script>
</body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `script-src ${cspHash(renderer.source)} ${cspHash(BOOT)}`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, csp };
}

/** Text compressed as the Lambdas store it (brotli, best quality). */
export const brotliText = (bytes: Buffer): Buffer =>
  brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });

export function toAsset(renderer: Renderer, page: { html: string; csp: string }): DocsPageAsset {
  const bytes = Buffer.from(page.html, 'utf8');
  const brotli = brotliText(bytes);
  return {
    renderer: { package: renderer.package, version: renderer.version, file: renderer.file, sha256: renderer.sha256 },
    sha256: sha256(bytes),
    bytes: bytes.length,
    csp: page.csp,
    brotli: brotli.toString('base64'),
  };
}

/** The HTML an asset holds. */
export const assetHtml = (asset: Pick<DocsPageAsset, 'brotli'>): string =>
  brotliDecompressSync(Buffer.from(asset.brotli, 'base64')).toString('utf8');
