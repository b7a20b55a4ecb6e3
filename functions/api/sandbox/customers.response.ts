import * as z from 'zod';
import { DECISION_VALUES } from '../../domain/decisions';
import { iso, spendingLimits } from '../shapes';

/** sandbox/customers: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  emailDomain: z.string(),
  answerDelaySeconds: z.number(),
  customers: z.array(
    z.object({
      outcome: z.string(),
      email: z.string(),
      deviceId: z.string(),
      description: z.string(),
      intentResponse: z.object({ customerDecision: z.enum(DECISION_VALUES), spendingLimits, blockMerchant: z.boolean() }).nullable(),
      debitResponse: z.string().nullable(),
    }),
  ),
  banks: z.array(z.object({ bankId: z.string(), bankName: z.string(), createdAt: iso, deviceIds: z.record(z.string(), z.string()) })),
});
