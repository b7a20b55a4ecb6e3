import * as z from 'zod';
import { MAX_CUSTOMERS_PER_BATCH } from '../../domain/customers';
import { endpoint, ok } from '../../http/endpoint';
import { logger } from '../../platform/log';
import { createCustomerBatch } from '../../customers/store';

/**
 * The envelope only: `{customers: [1..1000 records]}`. Each record is validated on its own
 * (an invalid record is reported in the batch result, never a whole-request failure).
 */
const body = z.strictObject({
  customers: z
    .array(z.unknown())
    .min(1, 'must hold at least one customer')
    .max(MAX_CUSTOMERS_PER_BATCH, `at most ${MAX_CUSTOMERS_PER_BATCH} customers per request`),
});

const batchResult = z.object({
  batchId: z.string(),
  status: z.enum(['COMPLETED', 'PROCESSING']),
  summary: z.object({
    total: z.number().int(),
    successful: z.number().int(),
    failed: z.number().int(),
    duplicates: z.number().int(),
    invalidData: z.number().int(),
  }),
  data: z.object({ createdCount: z.number().int(), customerIds: z.array(z.string()) }),
});

/**
 * POST /v1/bank/customers (DESIGN 6.9): validates every record, rejects duplicates of the
 * bank's existing customers and inside the batch, creates the rest, and answers with
 * per-record outcomes. Created customers are discoverable when this answers (`COMPLETED`).
 */
export const handler = endpoint(
  {
    body,
    response: batchResult,
    description:
      'Creates customers in a batch (recommended 100 to 500 records, at most 1,000). Required item fields: clientRef, firstname, lastname, email, country (assigned ISO 3166-1 alpha-2), accountNumber (6 to 20 digits), reference. A record is a duplicate when the bank already has, or an earlier record of the batch has, the same clientRef or reference. Failure entries: GET /v1/bank/customers/batches/{batchId}.',
  },
  async ({ body, principal, requestId }) => {
    const started = Date.now();
    const batch = await createCustomerBatch(principal.id, body.customers);
    // Counts and ids only: never the records (personal data).
    logger.info('customer batch', {
      requestId,
      bankId: principal.id,
      batchId: batch.batchId,
      ...batch.summary,
      durationMs: Date.now() - started,
    });
    return ok(201, 'Customer batch processed; created customers will reflect shortly', {
      batchId: batch.batchId,
      status: batch.status,
      summary: batch.summary,
      data: batch.data,
    });
  },
);
