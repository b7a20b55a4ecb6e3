import { endpoint, ok } from '../../http/endpoint';
import { listAudit } from '../../identity/audit';
import { pageQuery } from './schemas';

/** GET /v1/audit-log (owner, admin; also an API key): who changed what, newest first. */
export const handler = endpoint(
  { query: pageQuery, description: 'Who changed what: keys, team, webhook endpoints, applications and trust, newest first.' },
  async ({ query, principal }) => {
    const page = await listAudit(principal.id, query.limit, query.startingAfter);
    return ok(200, 'Audit log retrieved', page);
  },
);
