import * as z from 'zod';

/** account/invite: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({ invitationId: z.string(), token: z.string().describe('Shown only here; the invitee accepts with it') });
