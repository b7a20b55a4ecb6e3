/**
 * Settlement records and their lines (DESIGN 8.8): the writes. Reads and API
 * shapes are in ledger/settlement-views.ts.
 *
 * How a settlement knows exactly which captures and refunds it paid, without writing a line
 * twice (docs/decisions/settlement.md): every capture, and every refund taken from a pending
 * batch, puts a line (`SLINE#<m>#<day>` / `<ts>#<entryId>`) in the SAME transaction as its
 * batch shard ADD, and the line names the round that pays it (`stlRound`). The capture read
 * the day's settled round r (every shard of the day carries it after a settlement) and its
 * shard write is conditioned on it, so a settlement committing in between makes the capture
 * read again: its line says r + 1 exactly when round r + 1 has not committed yet. Round R
 * sums the lines saying R per shard and commits only if those sums equal the shard amounts
 * and counts it read (its shard updates are conditioned on them): a capture landing in
 * between cancels it and it starts again.
 */
import { releaseClaim, type DueJob } from '../platform/due';
import { type TransactItem, table } from '../platform/table';
import type { SettlementEntryFields } from './store';
import {
  merchantSettlementsPk,
  queryLinePages,
  settlementKey,
  signedLineAmount,
  type SettlementFields,
  type SettlementRecord,
} from './settlement-views';

/**
 * Retired due kind: settlements committed before release 3 were put on the due index until
 * their transactions carried `settlementId`; transactions now read it from their line.
 */
export const SETTLEMENT_LINES_KIND = 'settlement.lines';

/** Per batch shard: the payment count and signed amount of the lines of one round. */
export interface LineSums {
  byShard: Map<string, { count: number; amount: number }>;
  transactionCount: number;
  refundCount: number;
  amount: number;
}

/** The sums of the lines of round `round` of (merchant, day), page by page (never all lines in memory). */
export async function roundLineSums(merchantId: string, date: string, settlementId: string, round: number): Promise<LineSums> {
  const sums: LineSums = { byShard: new Map(), transactionCount: 0, refundCount: 0, amount: 0 };
  await queryLinePages({ merchantId, businessDate: date, settlementId, round }, async (page) => {
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

/**
 * The record put of a committed settlement (part of the settlement's transaction); with
 * `entry` (a round that paid something: ledger/store.ts `settlementEntry`) the record is also
 * the round's ledger entry (issue 50: one item where there were two).
 */
export function settlementRecordPut(r: SettlementFields, entry?: SettlementEntryFields): TransactItem {
  const item: SettlementRecord = {
    ...entry,
    ...settlementKey(r.settlementId),
    gsi2pk: merchantSettlementsPk(r.merchantId),
    gsi2sk: `${r.settledAt}#${r.settlementId}`,
    ...r,
  };
  return { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** Due kind `settlement.lines` (retired): takes a record committed before release 3 off the due index. */
export async function runSettlementLines(job: DueJob, read: (id: string) => Promise<SettlementRecord | undefined>): Promise<void> {
  const record = await read(job.id);
  if (!record || record.dueSk !== job.leasedSk) return;
  await releaseClaim(settlementKey(record.settlementId), job.leasedSk);
}
