import * as z from 'zod';
import { TRUST_LEVELS } from '../../domain/trust';
import { iso } from '../shapes';

/** provider/get-merchant: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  id: z.string(),
  ref: z.string().nullable(),
  name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  code: z.string().nullable(),
  providerId: z.string().nullable(),
  userType: z.literal('merchant'),
  country: z.string().nullable(),
  state: z.string().nullable(),
  website: z.string().nullable(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  trusted: z.boolean(),
  trustLevel: z.enum(TRUST_LEVELS),
  address: z.string().nullable(),
  industry: z.string().nullable(),
  createdAt: iso,
  updatedAt: iso,
});
