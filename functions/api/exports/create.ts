import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { isoDateTime } from '../../http/schemas';
import { createExport } from '../../exports/store';
import { EXPORT_KINDS } from '../../exports/views';
import { getMerchantSettlement } from '../../ledger/settlement-views';
import { MONEY_MSG } from '../../transactions/messages';
import { TRANSACTION_STATUSES } from '../../transactions/store';

const instant = isoDateTime.transform((v) => new Date(v).toISOString());

const body = z
  .strictObject({
    kind: z.enum(EXPORT_KINDS),
    /** transactions: inclusive bounds on createdAt (ISO 8601 with an offset). */
    from: instant.optional(),
    to: instant.optional(),
    /** transactions: only those with this status (as the history's `status` filter). */
    status: z.enum(TRANSACTION_STATUSES).optional(),
    /** settlement: the settlement whose lines to export. */
    settlementId: z.string().trim().min(1).max(100).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.kind === 'settlement') {
      if (!b.settlementId) ctx.addIssue({ code: 'custom', path: ['settlementId'], message: 'is required for a settlement export' });
      for (const f of ['from', 'to', 'status'] as const)
        if (b[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'applies to transactions exports only' });
    } else {
      if (b.settlementId !== undefined)
        ctx.addIssue({ code: 'custom', path: ['settlementId'], message: 'applies to settlement exports only' });
      if (b.from && b.to && b.from > b.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
    }
  });

/**
 * POST /v1/exports (merchant; a provider with X-Entity-Id): start a CSV export of the
 * merchant's transactions (optionally between `from` and `to`, and of one `status`) or of one settlement's
 * lines. 202 `{exportId, status: "pending"}`; the file is written by the jobs worker
 * (due kind `export.run`) and read with `GET /v1/exports/{id}`. Another merchant's or an
 * unknown settlement: 404 `Settlement not found`. Honours Idempotency-Key.
 */
export const handler = endpoint(
  { body, description: "Export the merchant's transactions or a settlement's lines as CSV (asynchronous)." },
  async ({ body, principal }) => {
    if (body.kind === 'settlement' && !(await getMerchantSettlement(principal.id, body.settlementId!)))
      throw notFound(MONEY_MSG.settlementNotFound);
    const e = await createExport(
      {
        merchantId: principal.id,
        kind: body.kind,
        from: body.from,
        to: body.to,
        transactionStatus: body.status,
        settlementId: body.settlementId,
      },
      new Date(),
    );
    return ok(202, MONEY_MSG.exportAccepted, { exportId: e.exportId, status: e.status });
  },
);
