import * as z from 'zod';
import { EXPORT_STATUSES } from '../../exports/views';

/** exports/get: `data` of the 2xx answer (DESIGN 8.8; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  exportId: z.string(),
  status: z.enum(EXPORT_STATUSES),
  rowCount: z.number().int().min(0).nullable().describe('Data rows in the CSV (the header row not counted); null until ready'),
  url: z.string().nullable().describe('Pre-signed S3 GET of the CSV (header row first), valid for 15 minutes; null until ready'),
});
