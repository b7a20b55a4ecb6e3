import * as z from 'zod';
import { addDays, lagosDate } from '../../domain/lagos-time';
import { endpoint, ok } from '../../http/endpoint';
import { queryDay } from '../../http/schemas';
import { MAX_VOLUME_DAYS, spanDays, volumeReport } from '../../ledger/day-counters';

const query = z
  .strictObject({ from: queryDay.optional(), to: queryDay.optional() })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, { message: 'must not be after to', path: ['from'] })
  .refine((q) => q.from === undefined || q.to === undefined || spanDays(q.from, q.to) <= MAX_VOLUME_DAYS, {
    message: `from and to may span at most ${MAX_VOLUME_DAYS} days`,
    path: ['to'],
  });

/**
 * GET /v1/reports/volume?from=YYYY-MM-DD&to=YYYY-MM-DD (DESIGN 9.3): one entry per Lagos day,
 * zeros included: succeeded debits (`count`, `amount`), refunds completed (`refunded`) and
 * disputed amounts (`disputed`) of that day, from the day counters the money transactions
 * write. Merchant (a provider with X-Entity-Id: that merchant), provider (all its merchants),
 * bank (its customers'). Default: the 30 days up to today; more than 92 days: 400.
 */
export const handler = endpoint(
  { query, description: 'Succeeded debits, refunds and disputes per Lagos day (at most 92 days).' },
  async ({ query, principal }) => {
    const to = query.to ?? (query.from ? addDays(query.from, 29) : lagosDate(new Date()));
    const from = query.from ?? addDays(to, -29);
    const kind = principal.kind === 'bank' ? 'bank' : principal.kind === 'provider' ? 'provider' : 'merchant';
    return ok(200, 'Volume retrieved', { days: await volumeReport({ kind, id: principal.id }, from, to) });
  },
);
