import * as z from 'zod';
import { FREQUENCIES } from '../../domain/schedule-dates';
import { SCHEDULE_STATUSES } from '../../recurring/views';
import { count, hasMore, total, currency, iso, money } from '../shapes';

/** bank/list-subscriptions: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  subscriptions: z.array(
    z.object({
      scheduleId: z.string(),
      customerId: z.string(),
      entityId: z.string(),
      merchantName: z.string().nullable(),
      amount: money,
      currency,
      frequency: z.enum(FREQUENCIES),
      interval: z.number().int(),
      status: z.enum(SCHEDULE_STATUSES),
      startDate: iso,
      endDate: iso.nullable(),
      nextBillingDate: iso.nullable(),
      totalBillings: count,
      maxBillings: z.number().int().nullable(),
      failedAttempts: count,
      description: z.string().nullable(),
      createdAt: iso,
      pausedAt: iso.nullable(),
      cancelledAt: iso.nullable(),
      completedAt: iso.nullable(),
    }),
  ),
  total,
  hasMore,
});
