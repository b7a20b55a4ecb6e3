/** The 2xx answers of the reports/ handlers (read by the OpenAPI generator only). */
import * as z from 'zod';
import { count, money } from '../shapes';
import type { Responses } from '../shapes';

export const RESPONSES = {
  volume: {
    data: z.object({
      days: z
        .array(
          z
            .object({
              date: z.string().describe('Lagos day, YYYY-MM-DD'),
              count: count.describe('Debits that succeeded that day'),
              amount: money.describe('Their total'),
              refunded: money.describe('Refunds completed that day'),
              disputed: money.describe('Amounts disputed that day, net of disputes reversed that day'),
            })
            .meta({ id: 'VolumeDay' }),
        )
        .describe('One entry per day from `from` to `to`, zeros included'),
    }),
  },
} satisfies Responses;
