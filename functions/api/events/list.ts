import { countDeliveries, getVisibleEvent, listEvents } from '../../events/views';
import { endpoint, ok } from '../../http/endpoint';
import { eventEnvelope } from '../../webhooks/event-body';
import { badRequest, MSG } from '../../platform/errors';
import { eventListResponse, listEventsQuery } from './schemas';

/**
 * GET /v1/events (DESIGN 8.2): the events addressed to the caller (a provider: its
 * merchants' too), newest first, with counts of the caller's deliveries of each.
 */
export const handler = endpoint(
  {
    query: listEventsQuery,
    response: eventListResponse,
    description: 'List the events sent to the caller in the last 30 days, newest first.',
  },
  async ({ query, principal, apiVersion }) => {
    const after = query.startingAfter ? await getVisibleEvent(principal.id, query.startingAfter) : undefined;
    if (query.startingAfter && !after) {
      throw badRequest(MSG.invalidQuery, [{ path: 'startingAfter', message: 'must be the id of an event of yours' }]);
    }
    const page = await listEvents(principal.id, query, query.limit, after?.event);
    return ok(200, 'Events retrieved', {
      events: page.events.map(({ event, deliveries }) => ({
        id: event.id,
        type: event.type,
        createdAt: event.createdAt,
        ...eventEnvelope(apiVersion),
        data: event.data,
        deliveries: countDeliveries(deliveries),
      })),
      hasMore: page.hasMore,
    });
  },
);
