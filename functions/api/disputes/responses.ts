/**
 * The 2xx answers of the disputes/ handlers, one entry per handler file: `data` (the envelope's
 * `data`). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by the handlers.
 */
import * as z from 'zod';
import { dispute, hasMore } from '../shapes';
import type { Responses } from '../shapes';

const list = z.object({ disputes: z.array(dispute), hasMore });

export const RESPONSES = {
  open: { data: dispute },
  'bank-list': { data: list },
  'bank-get': { data: dispute },
  resolve: { data: dispute },
  list: { data: list },
  get: { data: dispute },
  respond: { data: dispute },
  accept: { data: dispute },
} satisfies Responses;
