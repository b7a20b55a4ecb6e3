import * as z from 'zod';
import { endpointRange, getEndpoint, toApiEndpoint, type EndpointItem } from '../../webhooks/endpoint-store';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pagingOf } from '../../http/paging';
import { skipPaging } from '../../http/schemas';

/** Paging only (release 1 took no query: other parameters are still ignored). */
const query = z.object(skipPaging);

/** GET /v1/webhooks/endpoints?limit=&skip=|startingAfter=: the caller's endpoints, oldest first, never a secret. */
export const handler = endpoint(
  { query, description: "List the caller's webhook endpoints (secrets are never shown)." },
  async ({ query, principal }) => {
    const page = await listPage<EndpointItem>(
      endpointRange(principal.id),
      pagingOf(query),
      (id) => getEndpoint(principal.id, id),
      'one of your endpoints',
    );
    return ok(200, 'Webhook endpoints retrieved', { endpoints: page.items.map(toApiEndpoint), ...pageFields(page) });
  },
);
