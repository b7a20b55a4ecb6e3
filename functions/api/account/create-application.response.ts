import * as z from 'zod';
import { applicationStatus } from '../shapes';

/** account/create-application: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  applicationId: z.string(),
  status: applicationStatus,
  participantId: z.string().nullable().describe('The new participant once approved (sandbox: at once)'),
});
