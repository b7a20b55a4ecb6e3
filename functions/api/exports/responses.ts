/**
 * The 2xx answers of the exports/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { EXPORT_STATUSES } from '../../exports/views';
import type { Responses } from '../shapes';

export const RESPONSES = {
  create: {
    /** DESIGN 8.8 */
    data: z.object({ exportId: z.string(), status: z.literal('pending') }),
  },
  get: {
    /** DESIGN 8.8 */
    data: z.object({
      exportId: z.string(),
      status: z.enum(EXPORT_STATUSES),
      rowCount: z.number().int().min(0).nullable().describe('Data rows in the CSV (the header row not counted); null until ready'),
      url: z.string().nullable().describe('Pre-signed S3 GET of the CSV (header row first), valid for 15 minutes; null until ready'),
    }),
  },
} satisfies Responses;
