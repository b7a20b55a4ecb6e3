import { config, type Stage } from '../../config';
import { staticEndpoint, type StaticDocument } from '../../openapi/static-response';

/**
 * GET /v1/openapi.json (public): the OpenAPI 3.1 document of this deployment's stage, built
 * at build time (`npm run openapi`) from the route table and the handlers' zod schemas. The
 * bundle holds both stages' documents brotli-compressed (functions/openapi/openapi-served.json,
 * ~70 KB), not as JavaScript objects (~560 KB): the budget is 400 KB per function.
 */
const documents: Partial<Record<Stage, Promise<StaticDocument>>> = {};

async function documentOf(stage: Stage): Promise<StaticDocument> {
  const served = (await import('../../openapi/openapi-served.json', { with: { type: 'json' } })).default;
  const doc = stage === 'live' ? served.live : served.sandbox;
  return {
    contentType: 'application/json',
    etag: `"${doc.sha256.slice(0, 32)}"`,
    brotliBase64: doc.brotli,
  };
}

export const handler = staticEndpoint(
  { description: "This deployment's OpenAPI 3.1 document: every route of its stage, the envelopes, headers and webhook events." },
  () => {
    const stage = config.stage();
    return (documents[stage] ??= documentOf(stage));
  },
);
