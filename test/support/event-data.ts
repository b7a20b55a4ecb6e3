/**
 * Event data that conforms to its type's published schema (functions/events/schemas.ts), for
 * tests that commit events directly through the outbox: the events API's answers are checked
 * against the document (test/support/contract.ts), so an event read back must be a real one.
 */
import { billingResponseData } from '../../functions/events/schemas';
import type * as z from 'zod';

export function billingResponse(overrides: Partial<z.infer<typeof billingResponseData>> = {}): Record<string, unknown> {
  const data = {
    billingRequestId: 'breq_0000000000000000test',
    reference: 'txn_0000000000000000test',
    entityId: 'mer_0000000000000000test',
    customerId: 'cus_0000000000000000test',
    amount: 1500,
    currency: 'NGN',
    status: 'succeeded',
    customerAction: 'approved',
    bankTransactionId: null,
    ...overrides,
  };
  return billingResponseData.parse(data);
}
