import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { getApplication } from '../../identity/people-store';
import { toApiApplication } from '../../identity/views';

/** GET /v1/onboarding/applications/{id} (person): the applicant's own application; anyone else's is 404. */
export const handler = endpoint(
  { description: 'Read your application: its status and, when rejected, the reason.' },
  async ({ params, person }) => {
    const app = await getApplication(params.id!);
    if (!app || app.applicantId !== person!.sub) throw notFound(MSG.applicationNotFound);
    return ok(200, 'Application retrieved', toApiApplication(app));
  },
);
