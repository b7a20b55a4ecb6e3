/**
 * Event data that conforms to its type's published schema (functions/events/schemas.ts), for
 * tests that commit events directly through the outbox: the events API's answers are checked
 * against the document (test/support/contract.ts), so an event read back must be a real one.
 */
import { EVENT_CATALOG } from '../../functions/events/schemas';

const common = {
  billingRequestId: 'breq_0000000000000000test',
  reference: 'txn_0000000000000000test',
  entityId: 'mer_0000000000000000test',
  customerId: 'cus_0000000000000000test',
  merchantName: 'Test merchant',
  amount: 1500,
  currency: 'NGN',
  bankTransactionId: null,
  createdAt: '2026-11-02T09:00:00.000Z',
};

/** A sample of each type the tests commit (fields a type does not have are dropped by its schema). */
const SAMPLES = {
  'billing.response': { status: 'succeeded', customerAction: 'approved' },
  'billing.request': { type: 'agreement', clientRef: 'client-1', description: 'Test billing', requiresApproval: false },
  'refund.requested': { refundId: 'ref_0000000000000000test', reason: null, expectedBy: '2026-11-04T09:00:00.000Z' },
} as const;

/** Valid `data` of an event type, with `overrides` (parsed by the type's schema: a wrong field throws). */
export function eventData(type: keyof typeof SAMPLES, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return EVENT_CATALOG[type].data.parse({ ...common, ...SAMPLES[type], ...overrides }) as Record<string, unknown>;
}

/** `eventData('billing.response', overrides)`. */
export const billingResponse = (overrides: Record<string, unknown> = {}) => eventData('billing.response', overrides);
