import * as z from 'zod';
import { member } from '../shapes';

/** account/accept-invitation: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = member.extend({ participantId: z.string(), participantType: z.enum(['bank', 'merchant', 'provider']) });
