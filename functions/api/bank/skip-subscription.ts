import { skipEndpoint } from '../recurring/skip';

/** POST /v1/bank/subscriptions/{scheduleId}/skip (bank, for its customer; DESIGN 8.5): see api/recurring/skip.ts. */
export const handler = skipEndpoint((bankId) => ({ bankId }));
