/** Request pieces shared by the dispute handlers. */
import * as z from 'zod';
import { cursorPaging } from '../../http/schemas';
import { DISPUTE_STATUSES } from '../../disputes/views';

/** `GET /v1/disputes` and `GET /v1/bank/disputes`: `status=`, `reference=` (one transaction's disputes), paging. */
export const listQuery = z.strictObject({
  status: z.enum(DISPUTE_STATUSES).optional(),
  reference: z.string().trim().min(1).max(100).optional(),
  ...cursorPaging,
});
