/**
 * The 2xx answers of the webhooks/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { iso, delivery, hasMore, total, endpointView } from '../shapes';
import { EVENT_TYPES } from '../../events/types';
import { DELIVERY_STATUSES } from '../../webhooks/delivery-store';
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
  'get-delivery': {
    data: z.object({
      id: z.string(),
      eventId: z.string(),
      type: z.enum(EVENT_TYPES),
      endpointId: z.string(),
      url: z.string().nullable().describe('Where it was sent; null once the endpoint is deleted'),
      status: z.enum(DELIVERY_STATUSES),
      createdAt: iso,
      attempts: z
        .array(
          z
            .object({
              attempt: z.number().int(),
              at: iso,
              durationMs: z.number(),
              request: z
                .object({
                  headers: z.record(z.string(), z.string()).describe('As sent; signature values read `<redacted>`'),
                  body: z.string().describe('The first 4 KB'),
                })
                .nullable()
                .describe('null once the event is no longer kept'),
              response: z
                .object({
                  status: z.number().int(),
                  headers: z.record(z.string(), z.string()).describe('Kept for the latest 5 attempts (else empty)'),
                  body: z.string().describe('The first 4 KB; kept for the latest 5 attempts (else empty)'),
                })
                .nullable()
                .describe('null when no answer came (see `error`)'),
              error: z.string().nullable().describe('timeout, connection_refused, dns_error, endpoint_gone, redirect ...'),
            })
            .meta({ id: 'DeliveryAttemptDetail' }),
        )
        .describe('The latest 20 attempts, oldest first'),
    }),
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
