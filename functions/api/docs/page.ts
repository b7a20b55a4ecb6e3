import { staticEndpoint, type StaticDocument } from '../../openapi/static-response';

/**
 * GET /docs (public): the API reference, rendered in the browser by Redoc (inlined, no CDN)
 * from GET /v1/openapi.json. Built at build time (`npm run openapi`, functions/openapi/docs-page.ts).
 */
let doc: Promise<StaticDocument> | undefined;

async function load(): Promise<StaticDocument> {
  const page = (await import('../../openapi/docs-page.json', { with: { type: 'json' } })).default;
  return {
    contentType: 'text/html; charset=utf-8',
    etag: `"${page.sha256}"`,
    brotliBase64: page.brotli,
    headers: { 'Content-Security-Policy': page.csp, 'Referrer-Policy': 'no-referrer' },
  };
}

export const handler = staticEndpoint({ description: 'The API reference page (Redoc), for a browser.' }, () => (doc ??= load()));
