/**
 * Settlement records and their lines (DESIGN 8.8): the writes. Reads and API
 * shapes are in ledger/settlement-views.ts.
 *
 * How a settlement knows exactly which captures and refunds it paid (docs/decisions/settlement.md): every capture, and every refund taken from a pending batch, puts a
 * line (`SLINE#<m>#<day>` / `<ts>#<entryId>`) in the SAME transaction as its batch shard ADD.
 * Before the settlement of round R commits, `assignLines` stamps every unassigned line of
 * the day with R's id — each stamping transaction carries a ConditionCheck that R's record
 * does not exist yet, so no line is stamped R after R committed — and sums the lines
 * stamped R per shard. The settlement then commits only if those sums equal the shard
 * amounts and counts it read, and its shard updates are conditioned on them as before: a
 * capture that lands in between cancels it and it starts again. So the lines of R are
 * exactly the captures and refunds whose amounts R moved.
 *
 * After the commit, each payment line's transaction (the bill) gets `settlementId`
 * (`stampSettledTransactions`). The record carries the due kind `settlement.lines` a few
 * minutes ahead; the inline stamping clears it, and if the worker dies first the tick runs
 * the stamping again (it is idempotent).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { billKey } from '../bills/types';
import { db } from '../platform/clients';
import { dueAttributes, releaseClaim, type DueJob } from '../platform/due';
import { logger } from '../platform/log';
import { mapLimit } from '../platform/retry';
import { cancellationCodes, table, transact, type TransactItem } from '../platform/table';
import {
  merchantSettlementsPk,
  queryLinePages,
  settlementKey,
  signedLineAmount,
  type SettlementFields,
  type SettlementLine,
  type SettlementRecord,
} from './settlement-views';

export const SETTLEMENT_LINES_KIND = 'settlement.lines';
/** How long after the commit the tick re-runs a stamping that did not finish. */
export const LINES_RECOVERY_SECONDS = 300;
/** Lines stamped per transaction (plus the ConditionCheck on the record). */
const STAMP_CHUNK = 99;

/** Per batch shard: the payment count and signed amount of the lines stamped with one settlement id. */
export interface LineSums {
  byShard: Map<string, { count: number; amount: number }>;
  transactionCount: number;
  refundCount: number;
  amount: number;
}

/** Thrown when the settlement the lines would be stamped with has committed meanwhile. */
export class SettlementCommitted extends Error {}

/**
 * Stamps every unassigned line of (merchant, day) with `settlementId` (only while that
 * settlement's record does not exist) and returns the sums of the day's lines carrying it.
 * Reads the day page by page: never all lines in memory.
 */
export async function assignLines(merchantId: string, date: string, settlementId: string): Promise<LineSums> {
  const sums: LineSums = { byShard: new Map(), transactionCount: 0, refundCount: 0, amount: 0 };
  await queryLinePages(merchantId, date, settlementId, { includeOpen: true }, async (page) => {
    const open = page.filter((l) => l.settlementId === undefined);
    for (let i = 0; i < open.length; i += STAMP_CHUNK) await stampChunk(settlementId, open.slice(i, i + STAMP_CHUNK));
    for (const l of page) {
      const s = sums.byShard.get(l.batchSk) ?? { count: 0, amount: 0 };
      const signed = signedLineAmount(l);
      s.amount += signed;
      sums.amount += signed;
      if (l.type === 'payment') {
        s.count += 1;
        sums.transactionCount += 1;
      } else if (l.type === 'refund') sums.refundCount += 1;
      sums.byShard.set(l.batchSk, s);
    }
  });
  return sums;
}

async function stampChunk(settlementId: string, lines: SettlementLine[]): Promise<void> {
  const items: TransactItem[] = [
    { ConditionCheck: { TableName: table(), Key: settlementKey(settlementId), ConditionExpression: 'attribute_not_exists(pk)' } },
    ...lines.map(
      (l): TransactItem => ({
        Update: {
          TableName: table(),
          Key: { pk: l.pk, sk: l.sk },
          UpdateExpression: 'SET settlementId = :id',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(settlementId) OR settlementId = :id)',
          ExpressionAttributeValues: { ':id': settlementId },
        },
      }),
    ),
  ];
  try {
    await transact(items);
  } catch (e) {
    if (cancellationCodes(e)[0] === 'ConditionalCheckFailed') throw new SettlementCommitted(settlementId);
    throw e;
  }
}

/** The record put of a committed settlement (part of the settlement's transaction). */
export function settlementRecordPut(r: SettlementFields): TransactItem {
  const recoverAt = new Date(Date.parse(r.settledAt) + LINES_RECOVERY_SECONDS * 1000);
  const item: SettlementRecord = {
    ...settlementKey(r.settlementId),
    gsi2pk: merchantSettlementsPk(r.merchantId),
    gsi2sk: `${r.settledAt}#${r.settlementId}`,
    ...r,
    ...dueAttributes(SETTLEMENT_LINES_KIND, r.settlementId, recoverAt),
  };
  return { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * Sets `settlementId` on the transaction of every payment line of the settlement, then takes
 * the record off the due index (only while `leasedSk`, when given, still holds; without it,
 * only if the record still has the due entry it was written with). Idempotent.
 */
export async function stampSettledTransactions(record: SettlementRecord, leasedSk?: string): Promise<void> {
  let stamped = 0;
  await queryLinePages(record.merchantId, record.businessDate, record.settlementId, { includeOpen: false }, async (lines) => {
    const payments = lines.filter((l) => l.type === 'payment');
    await mapLimit(payments, 16, async (l) => {
      await db().send(
        new UpdateCommand({
          TableName: table(),
          Key: billKey(l.billingRequestId),
          UpdateExpression: 'SET settlementId = :id',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':id': record.settlementId },
        }),
      );
    });
    stamped += payments.length;
  });
  const seen = leasedSk ?? record.dueSk;
  // A tick that claimed the record meanwhile stamps again (idempotent) and clears it.
  if (seen !== undefined) await releaseClaim(settlementKey(record.settlementId), seen);
  logger.info('settlement transactions stamped', { settlementId: record.settlementId, stamped });
}

/** Due kind `settlement.lines`: the stamping of a settlement whose worker stopped after its commit. */
export async function runSettlementLines(job: DueJob, read: (id: string) => Promise<SettlementRecord | undefined>): Promise<void> {
  const record = await read(job.id);
  if (!record || record.dueSk !== job.leasedSk) return;
  await stampSettledTransactions(record, job.leasedSk);
}
