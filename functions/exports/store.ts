/**
 * Export writes: creation (on the due index at once: the tick hands it to the
 * jobs worker), and the job's conditional finish. See exports/views.ts for the item.
 */
import type { TransactionStatus } from '../bills/types';
import { newId } from '../domain/ids';
import { dueAttributes, type DueJob } from '../platform/due';
import { db } from '../platform/clients';
import { isConditionFailure, putItem, table, UpdateCommand } from '../platform/table';
import { exportKey, type ExportItem, type ExportKind, type ExportProgress } from './views';

export const EXPORT_RUN_KIND = 'export.run';

export async function createExport(
  e: { merchantId: string; kind: ExportKind; from?: string; to?: string; transactionStatus?: TransactionStatus; settlementId?: string },
  now: Date,
): Promise<ExportItem> {
  const exportId = newId('exp');
  const item: ExportItem = {
    ...exportKey(exportId),
    exportId,
    merchantId: e.merchantId,
    kind: e.kind,
    ...(e.from ? { from: e.from } : {}),
    ...(e.to ? { to: e.to } : {}),
    ...(e.transactionStatus ? { transactionStatus: e.transactionStatus } : {}),
    ...(e.settlementId ? { settlementId: e.settlementId } : {}),
    status: 'pending',
    createdAt: now.toISOString(),
    ...dueAttributes(EXPORT_RUN_KIND, exportId, now),
  };
  await putItem(item, 'attribute_not_exists(pk)');
  return item;
}

/**
 * pending → ready | failed, only while this run's claim (`leasedSk`) holds: a run whose
 * lease expired and was taken over changes nothing (its object is left to the bucket's
 * expiry). False when the claim was lost.
 */
export async function finishExport(
  exportId: string,
  leasedSk: string,
  outcome: { status: 'ready'; rowCount: number; s3Key: string; stats: Record<string, number> } | { status: 'failed'; reason: string },
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const ready = outcome.status === 'ready';
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: exportKey(exportId),
        UpdateExpression: ready
          ? 'SET #status = :s, rowCount = :n, s3Key = :k, readyAt = :at, stats = :stats REMOVE duePk, dueSk, progress'
          : 'SET #status = :s, failedAt = :at, failureReason = :why REMOVE duePk, dueSk, progress',
        ConditionExpression: '#status = :pending AND dueSk = :leased',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':s': outcome.status,
          ':at': at,
          ':pending': 'pending',
          ':leased': leasedSk,
          ...(ready ? { ':n': outcome.rowCount, ':k': outcome.s3Key, ':stats': outcome.stats } : { ':why': outcome.reason }),
        },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/**
 * A run that used its time saves its place and puts the export back on the due index at
 * once (the next tick continues it), only while its claim holds. False when it was lost.
 */
export async function checkpointExport(job: Pick<DueJob, 'id' | 'leasedSk'>, progress: ExportProgress, now: Date): Promise<boolean> {
  const due = dueAttributes(EXPORT_RUN_KIND, job.id, now);
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: exportKey(job.id),
        UpdateExpression: 'SET progress = :p, duePk = :dp, dueSk = :ds',
        ConditionExpression: '#status = :pending AND dueSk = :leased',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':p': progress, ':dp': due.duePk, ':ds': due.dueSk, ':pending': 'pending', ':leased': job.leasedSk },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}
