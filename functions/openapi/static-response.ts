/**
 * Runtime of the two public documentation routes (GET /v1/openapi.json, GET /docs): a
 * fixed document built at build time, served with an ETag (304 on If-None-Match) and
 * compressed for the client (API Gateway HTTP APIs do not compress): brotli when the
 * document is stored that way and the client accepts it, else gzip (made once per
 * container), else identity.
 *
 * Not the middy `endpoint()` pipeline: these routes have no key, no rate limit, no body and
 * no idempotency, and that pipeline's auth and idempotency modules bring the DynamoDB
 * client into the bundle (~370 KB) of a Lambda that never calls DynamoDB. They keep what a
 * client sees of it: `X-Request-Id`, the error envelope, one log line per request, and a
 * `.spec` for the OpenAPI generator.
 */
import { brotliDecompressSync, gzipSync } from 'node:zlib';
import { logger } from '../platform/log';
import { AppError, MSG } from '../platform/errors';
import { VERSION_HEADER, checkApiVersion, errorAnswer, requestIdOf, requestVersion } from '../platform/api-request';
import type { HttpEvent, HttpResponse } from '../http/types';

export interface StaticDocument {
  contentType: string;
  /** Quoted strong validator, e.g. `"<sha256>"`. */
  etag: string;
  headers?: Record<string, string>;
  /** The document's bytes (when not stored compressed). */
  identity?: () => Buffer;
  /** The document stored brotli-compressed (base64). */
  brotliBase64?: string;
}

type Encoding = 'br' | 'gzip' | 'identity';

/** Encodings the client accepts (q > 0), from Accept-Encoding. */
export function acceptedEncodings(header: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    out.add(name.trim());
  }
  return out;
}

/** One document's encoded forms, made on first use and kept for the container's life. */
class Encoded {
  private cache = new Map<Encoding, Buffer>();
  constructor(private readonly doc: StaticDocument) {}

  private identity(): Buffer {
    let b = this.cache.get('identity');
    if (!b) {
      if (this.doc.identity) b = this.doc.identity();
      else if (this.doc.brotliBase64) b = brotliDecompressSync(Buffer.from(this.doc.brotliBase64, 'base64'));
      else throw new Error('StaticDocument has no content');
      this.cache.set('identity', b);
    }
    return b;
  }

  pick(acceptEncoding: string | undefined): { encoding: Encoding; body: Buffer } {
    const accepted = acceptedEncodings(acceptEncoding);
    if (this.doc.brotliBase64 && accepted.has('br')) {
      let b = this.cache.get('br');
      if (!b) this.cache.set('br', (b = Buffer.from(this.doc.brotliBase64, 'base64')));
      return { encoding: 'br', body: b };
    }
    if (accepted.has('gzip')) {
      let b = this.cache.get('gzip');
      if (!b) this.cache.set('gzip', (b = gzipSync(this.identity(), { level: 6 })));
      return { encoding: 'gzip', body: b };
    }
    return { encoding: 'identity', body: this.identity() };
  }
}

export interface PublicSpec {
  description?: string;
}

/**
 * A Lambda handler serving `select()`'s document (chosen per request, e.g. by stage).
 * `select` imports the generated file lazily (`import()` of a literal path, which esbuild
 * still bundles): importing the handler module never needs it, so the generator can import
 * every handler even when a generated file is missing or broken.
 */
export function staticEndpoint(spec: PublicSpec, select: () => Promise<StaticDocument>) {
  const encoded = new WeakMap<StaticDocument, Encoded>();
  const handler = async (event: HttpEvent): Promise<HttpResponse> => {
    const startedAt = Date.now();
    const requestId = requestIdOf(event);
    let response: HttpResponse;
    try {
      checkApiVersion(event);
      const doc = await select();
      let enc = encoded.get(doc);
      if (!enc) encoded.set(doc, (enc = new Encoded(doc)));
      const common = {
        'Cache-Control': 'public, max-age=300',
        ETag: doc.etag,
        Vary: 'Accept-Encoding',
        'X-Content-Type-Options': 'nosniff',
        ...doc.headers,
        'X-Request-Id': requestId,
        [VERSION_HEADER]: requestVersion(event),
      };
      const ifNoneMatch = event.headers?.['if-none-match'];
      if (ifNoneMatch?.split(',').some((t) => t.trim().replace(/^W\//, '') === doc.etag)) {
        response = { statusCode: 304, headers: common, body: '' };
      } else {
        const { encoding, body } = enc.pick(event.headers?.['accept-encoding']);
        const headers: Record<string, string> = { ...common, 'Content-Type': doc.contentType };
        response =
          encoding === 'identity'
            ? { statusCode: 200, headers, body: body.toString('utf8') }
            : {
                statusCode: 200,
                headers: { ...headers, 'Content-Encoding': encoding },
                body: body.toString('base64'),
                isBase64Encoded: true,
              };
      }
    } catch (error) {
      if (error instanceof AppError) response = errorAnswer(error, requestId);
      else {
        logger.error('Unhandled error', { requestId, error: error as Error });
        response = errorAnswer(new AppError(500, MSG.internal), requestId);
      }
    }
    logger.info('request', { requestId, route: event.routeKey, status: response.statusCode, durationMs: Date.now() - startedAt });
    return response;
  };
  return Object.assign(handler, { spec });
}
