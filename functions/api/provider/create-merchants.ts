import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, type FieldError } from '../../platform/errors';
import { createMerchants } from '../../merchants/store';
import { createMerchantsSchema } from './schemas';

/**
 * POST /v1/provider/merchants: creates up to 25 merchants of the calling provider, all or
 * nothing (one DynamoDB transaction). Each item of the reply carries the merchant's API
 * key, shown only here.
 */
export const handler = endpoint(
  { body: createMerchantsSchema, bodyMessage: MSG.invalidMerchantData, description: 'All or nothing; at most 25 merchants per request.' },
  async ({ body, principal, audit }) => {
    // Duplicates inside the batch (case-insensitive), before any write.
    const firstByEmail = new Map<string, number>();
    const inBatch: FieldError[] = [];
    body.merchants.forEach((m, i) => {
      const key = m.email.trim().toLowerCase();
      const first = firstByEmail.get(key);
      if (first === undefined) firstByEmail.set(key, i);
      else inBatch.push({ path: `merchants.${i}.email`, message: `same email as merchants.${first}.email` });
    });
    if (inBatch.length) throw emailConflict(inBatch);

    const result = await createMerchants(principal.id, body.merchants, audit);
    if (!result.ok) {
      throw emailConflict(
        result.duplicateIndexes.map((i) => ({ path: `merchants.${i}.email`, message: 'a merchant with this email already exists' })),
      );
    }
    return ok(201, 'Merchants created', { created: result.merchants.length, merchants: result.merchants });
  },
);

const emailConflict = (errors: FieldError[]) => conflict(MSG.merchantEmailExists, errors);
