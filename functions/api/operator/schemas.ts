import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { TRUST_LEVELS } from '../../identity/participant-store';

export const bankAccountSchema = z.strictObject({
  bankName: safeText(200).optional(),
  accountNumber: z
    .string()
    .regex(/^\d{6,20}$/, 'must be 6 to 20 digits')
    .optional(),
  accountName: safeText(200).optional(),
});

export const createParticipantSchema = z.strictObject({
  type: z.enum(['bank', 'merchant', 'provider']),
  name: safeText(200),
  email: z.email().max(254),
  phone: safeText(32, 3).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
    .optional(),
  providerId: z.string().min(1).max(64).optional(),
  bankAccount: bankAccountSchema.optional(),
  simulated: z.boolean().optional(),
  /** DESIGN 8.3: the person at this address is invited as the participant's first owner. */
  ownerEmail: z.email().max(254).optional(),
});

export const trustLevelSchema = z.enum(TRUST_LEVELS);
