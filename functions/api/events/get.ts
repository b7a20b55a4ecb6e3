import { eventsWithDeliveries, getVisibleEvent } from '../../events/views';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { eventResponse } from './schemas';

/** GET /v1/events/{id} (DESIGN 8.2): one event of the caller's, with its deliveries to the caller's endpoints. */
export const handler = endpoint(
  { response: eventResponse, description: 'Read one event and its deliveries.' },
  async ({ params, principal, apiVersion }) => {
    const visible = await getVisibleEvent(principal.id, params.id ?? '');
    if (!visible) throw notFound(MSG.eventNotFound);
    const [event] = await eventsWithDeliveries(principal.id, [visible], apiVersion);
    return ok(200, 'Event retrieved', event);
  },
);
