import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { isBillingRequestIdShaped } from '../../billing/bill-item';
import { BILLING_MSG } from '../../billing/messages';
import { expireBilling } from '../../billing/settle-billing';
import { endpoint, ok } from '../../http/endpoint';
import { conflict, notFound, SANDBOX_MSG } from '../../platform/errors';
import { billKey, type BillItem } from '../../bills/types';
import { getItem } from '../../platform/table';

/** Bounded: each round means another writer changed the billing; the next read decides. */
const MAX_ROUNDS = 4;

const notPending = (status: string) =>
  conflict(SANDBOX_MSG.billingNotPending, [{ path: 'status', message: `the billing request is ${status}` }]);

/**
 * POST /v1/sandbox/billing-requests/{id}/expire (merchant or provider with X-Entity-Id;
 * sandbox only): a pending approval (`requiresApproval`) of the caller expires NOW, through
 * the same path as the approval window's end (`expireBilling`): `expired`, reservation
 * released, `billing.response` (status expired, reason approval_expired). Not the caller's
 * (or unknown): 404 `Billing request not found`. Not pending: 409 `Billing request is not
 * pending`; pending but needing no approval (an approve_recurring billing): 409.
 */
export const handler = endpoint(
  {
    body: z.strictObject({}),
    description: 'Expire one of your pending approvals now (the same path as the end of its approval window).',
  },
  async ({ params, principal }) => {
    const id = params.id ?? '';
    let bill = isBillingRequestIdShaped(id) ? await getItem<BillItem>(billKey(id)) : undefined;
    if (!bill || bill.merchantId !== principal.id) throw notFound(BILLING_MSG.requestNotFound);
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      if (bill.status !== 'pending') throw notPending(bill.status);
      if (!bill.requiresApproval) throw conflict(SANDBOX_MSG.billingNotAwaitingApproval);
      const r = await expireBilling(bill, clockNow());
      if (r.ok) {
        return ok(200, SANDBOX_MSG.billingExpired, {
          billingRequestId: r.bill.billingRequestId,
          reference: r.bill.reference,
          status: r.bill.status,
          reason: r.bill.reason ?? null,
        });
      }
      if (r.reason === 'busy') break;
      if (!r.current) throw notFound(BILLING_MSG.requestNotFound);
      bill = r.current;
    }
    throw conflict(BILLING_MSG.settleBusy);
  },
);
