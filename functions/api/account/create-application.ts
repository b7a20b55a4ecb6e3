import { config } from '../../config';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict } from '../../platform/errors';
import { personEmail } from '../../identity/tokens';
import { createApplication } from '../../identity/people-store';
import { applicationSchema } from './schemas';

/**
 * POST /v1/onboarding/applications (person, DESIGN 8.3): the business details are stored;
 * the sandbox approves at once (the participant exists and the applicant is its owner), live
 * waits for the operator. A merchant email another merchant has: 409 (sandbox: at once; live:
 * when the operator approves).
 */
export const handler = endpoint(
  {
    body: applicationSchema,
    description: 'Apply to join as a merchant or provider. Sandbox approves at once; live waits for the operator.',
  },
  async ({ body, person, accessToken, audit }) => {
    const email = await personEmail(accessToken!);
    const app = await createApplication(person!, email, body, config.stage() === 'sandbox', audit);
    if (app === 'already_pending') throw conflict(MSG.applicationPending);
    if (app === 'email_taken') throw conflict(MSG.merchantEmailExists);
    return ok(201, 'Application submitted', {
      applicationId: app.applicationId,
      status: app.status,
      participantId: app.participantId ?? null,
    });
  },
);
