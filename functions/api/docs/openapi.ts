import { createHash } from 'node:crypto';
import { config, type Stage } from '../../config';
import { staticEndpoint, type StaticDocument } from '../../openapi/static-response';

/**
 * GET /v1/openapi.json (public): the OpenAPI 3.1 document of this deployment's stage, built
 * at build time (`npm run openapi`) from the route table and the handlers' zod schemas.
 */
const documents: Partial<Record<Stage, Promise<StaticDocument>>> = {};

async function documentOf(stage: Stage): Promise<StaticDocument> {
  const doc =
    stage === 'live'
      ? (await import('../../openapi/openapi.live.json', { with: { type: 'json' } })).default
      : (await import('../../openapi/openapi.sandbox.json', { with: { type: 'json' } })).default;
  const bytes = Buffer.from(JSON.stringify(doc), 'utf8');
  return {
    contentType: 'application/json',
    etag: `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`,
    identity: () => bytes,
  };
}

export const handler = staticEndpoint(
  { description: "This deployment's OpenAPI 3.1 document: every route of its stage, the envelopes, headers and webhook events." },
  () => {
    const stage = config.stage();
    return (documents[stage] ??= documentOf(stage));
  },
);
