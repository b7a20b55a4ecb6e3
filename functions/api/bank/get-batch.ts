import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { getBankBatch } from '../../customers/store';

/**
 * GET /v1/bank/customers/batches/{batchId} (DESIGN 6.9): the bank's own batch result plus
 * `failures: [{index, clientRef, reason}]` (index = position in the request's `customers`,
 * from 0). Unknown or another bank's: 404 `Batch not found`.
 */
export const handler = endpoint(
  { description: 'Reads a customer batch result and its failure entries.' },
  async ({ params, principal }) => {
    const batchId = params.batchId ?? '';
    const batch = batchId.length <= 100 ? await getBankBatch(principal.id, batchId) : undefined;
    if (!batch) throw notFound(MSG.batchNotFound);
    return ok(200, 'Batch retrieved', {
      batchId: batch.batchId,
      status: batch.status,
      summary: batch.summary,
      data: batch.data,
      failures: batch.failures,
    });
  },
);
