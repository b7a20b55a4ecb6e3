import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { safeText } from '../../http/schemas';
import { decide } from '../../identity/applications';

const body = z.strictObject({ reason: safeText(500) });

/** POST /v1/operator/applications/{id}/reject {reason}: the applicant reads the reason. */
export const handler = endpoint(
  { body, description: 'Reject a pending application with a reason the applicant reads.' },
  async ({ params, body, audit }) => {
    return ok(200, 'Application rejected', await decide(params.id!, { approve: false, reason: body.reason }, audit));
  },
);
