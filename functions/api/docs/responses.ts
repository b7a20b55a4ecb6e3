/**
 * The 2xx answers of the docs/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import type { Responses } from '../shapes';

export const RESPONSES = {
  openapi: {
    /** the whole 2xx body */
    body: z
      .looseObject({
        openapi: z.string(),
        info: z.looseObject({ title: z.string(), version: z.string() }),
        paths: z.record(z.string(), z.unknown()),
      })
      .describe('This OpenAPI 3.1 document'),
  },
} satisfies Responses;
