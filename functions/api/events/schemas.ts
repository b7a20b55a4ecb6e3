import * as z from 'zod';
import { eventBody } from '../../events/schemas';
import { EVENT_TYPES } from '../../events/types';
import { cursorPaging, queryInstant } from '../../http/schemas';

/** An instant in the query (2000 to 2099), normalised to the UTC ISO form event keys use. */
const instant = queryInstant.transform((v) => new Date(v).toISOString());

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

/**
 * One event as the events API shows it: the webhook body of its type (`{id, type, createdAt,
 * data}`, one schema per event type, discriminated by `type`: the same schemas as the
 * document's webhooks) plus the caller's deliveries of it.
 */
const withDeliveries = (deliveries: z.ZodType) => z.intersection(eventBody, z.object({ deliveries }));

export const eventListResponse = z.object({
  events: z.array(withDeliveries(counts.describe("Counts of the caller's own deliveries of the event"))),
  hasMore: z.boolean(),
});

export const eventResponse = withDeliveries(
  z
    .array(
      z.object({
        id: z.string(),
        endpointId: z.string(),
        status: z.enum(['pending', 'delivered', 'failed']),
        attempts: z.number().int(),
        lastAttemptAt: z.string().nullable(),
        responseStatus: z.number().int().nullable().describe('HTTP status of the last attempt (null: no answer)'),
      }),
    )
    .describe("The event's deliveries to the caller's endpoints"),
);
