import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { openRefusal } from '../../disputes/answers';
import { openDispute } from '../../disputes/store';
import { DISPUTE_MSG, DISPUTE_REASONS, disputeView } from '../../disputes/views';
import { findBillByReference } from '../../transactions/store';

const body = z.strictObject({ reason: z.enum(DISPUTE_REASONS).optional() });

/**
 * POST /v1/sandbox/transactions/{reference}/dispute (merchant or provider with X-Entity-Id;
 * sandbox only): the customer's bank disputes one of your succeeded transactions now, for
 * what is left of it (reason default `unauthorized`), exactly as `POST /v1/bank/disputes`
 * would: `dispute.created` follows. Not yours (or unknown): 404 `Transaction not found`.
 */
export const handler = endpoint(
  { body, description: "Have the customer's bank dispute one of your transactions now." },
  async ({ params, body, principal }) => {
    const reference = params.reference ?? '';
    const bill = await findBillByReference(reference);
    if (!bill || bill.merchantId !== principal.id) throw notFound(DISPUTE_MSG.transactionNotFound);
    const r = await openDispute({ bankId: bill.bankId, reference, reason: body.reason ?? 'unauthorized' });
    if (!r.ok) throw openRefusal(r);
    return ok(201, DISPUTE_MSG.opened, disputeView(r.dispute));
  },
);
