import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { getMerchantExport, toApiExport } from '../../exports/views';
import { MONEY_MSG } from '../../transactions/messages';

/**
 * GET /v1/exports/{id} (merchant; a provider with X-Entity-Id): the export's status; when
 * `ready`, `rowCount` and `url`, a pre-signed S3 GET of the CSV valid for
 * EXPORT_URL_SECONDS (15 minutes). Unknown or another merchant's: 404 `Export not found`.
 */
export const handler = endpoint(
  { description: 'Read an export: its status, and when ready its row count and download URL.' },
  async ({ params, principal }) => {
    const e = await getMerchantExport(principal.id, params.id ?? '');
    if (!e) throw notFound(MONEY_MSG.exportNotFound);
    return ok(200, MONEY_MSG.exportRetrieved, await toApiExport(e));
  },
);
