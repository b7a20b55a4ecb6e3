import * as z from 'zod';
import { config } from '../../config';
import { DELIVERY_STATUSES } from '../../webhooks/delivery-store';
import { ALL_EVENTS, EVENT_TYPES, SUBSCRIBABLE } from '../../events/types';
import { checkWebhookUrl } from '../../webhooks/url-policy';
import { skipPaging } from '../../http/schemas';

/** The URL rules of DESIGN 6.9, for the stage this deployment runs. */
const webhookUrl = z
  .string()
  .trim()
  .min(1)
  .superRefine((value, ctx) => {
    const check = checkWebhookUrl(value, config.stage());
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason });
  });

const eventName = z.enum(SUBSCRIBABLE, { error: `must be "${ALL_EVENTS}" or a known event type` });

export const createEndpointSchema = z.strictObject({
  url: webhookUrl,
  events: z.array(eventName).min(1).max(SUBSCRIBABLE.length).optional(),
});

/** Deduplicated, in the given order; `*` alone when present (it already means everything). */
export function normaliseEvents(events: readonly string[] | undefined): string[] {
  if (!events || events.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return [...new Set(events)];
}

export const listDeliveriesQuery = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  type: z.enum(EVENT_TYPES, { error: 'must be a known event type' }).optional(),
  ...skipPaging,
});
