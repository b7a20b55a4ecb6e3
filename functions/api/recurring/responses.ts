/**
 * The 2xx answers of the recurring/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { SCHEDULE_STATUSES } from '../../recurring/views';
import { customerName, iso, schedule, hasMore, total, scheduleSummary, transaction } from '../shapes';
import type { Responses } from '../shapes';

export const RESPONSES = {
  amend: {
    /** DESIGN 8.6 */
    data: z.object({
      scheduleId: z.string(),
      amendmentId: z.string(),
      status: z.literal('pending').describe("Waiting for the customer's bank: schedule.amended or schedule.amendment_declined follows"),
    }),
  },
  cancel: {
    data: z.object({ scheduleId: z.string(), status: z.literal('cancelled'), cancelledAt: iso.nullable() }),
  },
  get: {
    data: schedule.extend({
      customer: customerName.nullable(),
      runs: z.array(transaction).describe('The transactions of its latest 20 runs, newest first (a run refused before billing has none)'),
    }),
  },
  list: {
    data: z.object({ schedules: z.array(scheduleSummary.extend({ customer: customerName.nullable() })), total, hasMore }),
  },
  pause: {
    data: z.object({
      scheduleId: z.string(),
      status: z.enum(SCHEDULE_STATUSES),
      pausedAt: iso.nullable(),
      resumesAt: iso.optional().describe('When it resumes by itself (absent: until resumed)'),
    }),
  },
  resume: {
    data: z.object({
      scheduleId: z.string(),
      status: z.enum(SCHEDULE_STATUSES),
      resumedAt: iso.nullable(),
      nextBillingDate: iso.nullable(),
    }),
  },
  skip: {
    /** Also bank/skip-subscription (DESIGN 8.5) */
    data: z.object({
      scheduleId: z.string(),
      skippedRunAt: iso.describe('The date of the run that will not be billed'),
      nextBillingDate: iso.nullable().describe('null when skipping completed the schedule (no date left before endDate)'),
    }),
  },
} satisfies Responses;
