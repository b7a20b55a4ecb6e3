/**
 * The 2xx answers of the webhooks/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { iso, delivery, hasMore, total, endpointView } from '../shapes';
import type { Responses } from '../shapes';

export const RESPONSES = {
  'create-endpoint': {
    data: z.object({
      id: z.string(),
      url: z.string(),
      events: z.array(z.string()),
      secret: z.string().describe('Shown only here'),
      status: z.enum(['enabled', 'disabled']),
      createdAt: iso,
    }),
  },
  'delete-endpoint': {
    data: z.object({ id: z.string(), deleted: z.literal(true) }),
  },
  'list-deliveries': {
    data: z.object({ deliveries: z.array(delivery), total, hasMore }),
  },
  'list-endpoints': {
    data: z.object({ endpoints: z.array(endpointView), total, hasMore }),
  },
  'replay-delivery': {
    data: delivery,
  },
  'rotate-secret': {
    data: z.object({ id: z.string(), secret: z.string().describe('Shown only here'), previousSecretExpiresAt: iso }),
  },
  'test-endpoint': {
    data: z.object({
      eventId: z.string(),
      deliveryId: z.string().nullable(),
      endpointId: z.string(),
      type: z.literal('webhook.test'),
    }),
  },
} satisfies Responses;
