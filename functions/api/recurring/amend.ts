import * as z from 'zod';
import { FREQUENCIES } from '../../domain/schedule-dates';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest, conflict, forbidden, notFound } from '../../platform/errors';
import { amountSchema } from '../../http/money-schemas';
import { nonEmpty } from '../../http/schemas';
import { nowIso } from '../../platform/table';
import { requestAmendment } from '../../recurring/amendments';

const bodySchema = z
  .strictObject({
    amount: amountSchema.optional(),
    frequency: z.enum(FREQUENCIES).optional(),
    description: nonEmpty(500).nullable().optional(),
  })
  .refine(
    (b) => b.amount !== undefined || b.frequency !== undefined || b.description !== undefined,
    'give amount, frequency or description',
  );

/**
 * PATCH /v1/recurring/{scheduleId} {amount?, frequency?, description?} (merchant, DESIGN 8.6):
 * asks the customer's bank for a fresh decision on the new terms (a `billing.intent` with
 * `amendment`) -> 202 `{scheduleId, amendmentId, status: "pending"}`. The schedule keeps its
 * terms until the bank approves (then `schedule.amended`, from the next run) or declines
 * (`schedule.amendment_declined`). 404 another merchant's or unknown; 409 cancelled/completed
 * or an amendment already pending; 400 nothing would change.
 */
export const handler = endpoint(
  { body: bodySchema, description: "Amend a schedule's amount, frequency or description" },
  async ({ body, params, principal }) => {
    // amountSchema gives minor units already.
    const r = await requestAmendment(principal.id, params.scheduleId ?? '', body, nowIso());
    if (!r.ok) {
      if (r.reason === 'not_found') throw notFound(MSG.recurringNotFound);
      if (r.reason === 'pending') throw conflict(MSG.recurringAmendmentPending);
      if (r.reason === 'not_active') throw conflict(MSG.recurringNotActive);
      if (r.reason === 'no_permission') throw forbidden(MSG.recurringPermissionRequired);
      throw badRequest(MSG.invalidRequest, [{ path: 'body', message: 'the amendment changes nothing' }]);
    }
    return ok(202, "Amendment sent to the customer's bank", {
      scheduleId: r.schedule.scheduleId,
      amendmentId: r.amendmentId,
      status: 'pending',
    });
  },
);
