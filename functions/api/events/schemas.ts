import * as z from 'zod';
import { EVENT_TYPES } from '../../events/types';
import { cursorPaging, isoDateTime } from '../../http/schemas';

/** An instant in the query, normalised to the UTC ISO form event keys use. */
const instant = isoDateTime.transform((v) => new Date(v).toISOString());

/** `GET /v1/events` (DESIGN 8.2): filters + the release-2 list shape (limit, startingAfter). */
export const listEventsQuery = z
  .strictObject({
    type: z.enum(EVENT_TYPES, { error: 'must be a known event type' }).optional(),
    deliverySuccess: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .transform((v) => v === 'true')
      .optional(),
    createdFrom: instant.optional(),
    createdTo: instant.optional(),
    ...cursorPaging,
  })
  .refine((q) => !q.createdFrom || !q.createdTo || q.createdFrom <= q.createdTo, {
    message: 'must not be after createdTo',
    path: ['createdFrom'],
  });

const counts = z.object({ total: z.number().int(), succeeded: z.number().int(), failed: z.number().int(), pending: z.number().int() });

const eventFields = {
  id: z.string().describe('Event id (`evt_…`), the X-Webhook-Id / webhook-id of its deliveries'),
  type: z.enum(EVENT_TYPES),
  createdAt: z.string().describe('ISO 8601 UTC'),
  data: z.record(z.string(), z.unknown()).describe("The event's payload, as its webhooks carry it (DESIGN 6.7)"),
};

export const eventListResponse = z.object({
  events: z.array(z.object({ ...eventFields, deliveries: counts.describe("Counts of the caller's own deliveries of the event") })),
  hasMore: z.boolean(),
});

export const eventResponse = z.object({
  ...eventFields,
  deliveries: z.array(
    z.object({
      id: z.string(),
      endpointId: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      lastAttemptAt: z.string().nullable(),
      responseStatus: z.number().int().nullable().describe('HTTP status of the last attempt (null: no answer)'),
    }),
  ),
});
