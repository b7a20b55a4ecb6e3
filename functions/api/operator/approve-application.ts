import { endpoint, ok } from '../../http/endpoint';
import { decide } from '../../identity/applications';

/** POST /v1/operator/applications/{id}/approve: creates the participant; the applicant becomes its owner. */
export const handler = endpoint(
  { description: 'Approve a pending application: the participant is created and the applicant is its owner.' },
  async ({ params, audit }) => {
    return ok(200, 'Application approved', await decide(params.id!, { approve: true }, audit));
  },
);
