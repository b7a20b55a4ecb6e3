import * as z from 'zod';
import { role } from '../shapes';

const membership = z
  .object({
    participantId: z.string(),
    name: z.string().nullable().describe("The participant's name"),
    kind: z.enum(['bank', 'merchant', 'provider']),
    role,
    joinedAt: z.string(),
  })
  .meta({ id: 'Membership' });

/** account/me: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  userId: z.string().describe("The person's Cognito user id"),
  email: z.string().nullable(),
  memberships: z.array(membership),
});
