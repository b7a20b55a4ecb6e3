/**
 * Settlement reads and API shapes (DESIGN 8.8). Writes: ledger/settlement-store.ts.
 *
 * | item | pk | sk | notes |
 * | settlement | `STL#<settlementId>` | `STL` | gsi2 `MSTL#<merchantId>` / `<settledAt>#<id>` (merchant's list, newest first) |
 * | settlement line | `SLINE#<merchantId>#<day>` | `<source ts>#<entryId>` | `stlRound`: the round of the day's settlement that pays it (written once, with the capture / refund) |
 */
import { toMajor } from '../domain/money';
import type { EventDerivers } from '../events/outbox';
import { getItem, queryPage } from '../platform/table';

/**
 * A capture, or a refund taken from a pending batch, adds one line to its settlement day in
 * the same transaction as its batch shard ADD (so a line is visible exactly when its amount
 * is in the shard). The line is written once and names the round of the day's settlement
 * that pays it (`stlRound`): the capture read the day's settled round r and conditioned its
 * shard write on it, so its line is paid by round r + 1 (docs/decisions/settlement.md).
 * Lines written before release 3 carry `settlementId` instead (stamped by their settlement).
 */
export interface SettlementLine extends SettlementLineFields {
  pk: string; // SLINE#<merchantId>#<yyyy-mm-dd>
  sk: string; // <source ts>#<entryId>
  [extra: string]: unknown;
}

export interface SettlementLineFields {
  merchantId: string;
  settlementDate: string;
  /** The batch shard (sk) whose amount the line is part of. */
  batchSk: string;
  entryId: string;
  type: SettlementLineType;
  /** Minor units, > 0 (a line of a NEGATIVE_LINES type lowers the settlement by this amount). */
  amount: number;
  /** The transaction's reference; carried lines: the settlement the negative net came from. */
  reference: string;
  /** The transaction's billing request ('' on carried lines). */
  billingRequestId: string;
  refundId?: string;
  disputeId?: string;
  postedAt: string;
  /** The round of the day's settlement that pays this line (release 3). */
  stlRound?: number;
  /** Lines settled before release 3: the settlement that stamped them. */
  settlementId?: string;
}

export const linesPk = (merchantId: string, date: string) => `SLINE#${merchantId}#${date}`;

/** The key of a capture's line: its settlement day's partition, `<billing createdAt>#capture:<billingRequestId>`. */
export const captureLineKey = (merchantId: string, settlementDate: string, createdAt: string, billingRequestId: string) => ({
  pk: linesPk(merchantId, settlementDate),
  sk: `${createdAt}#capture:${billingRequestId}`,
});

/**
 * What a line is (docs/decisions/settlement.md, disputes.md): a capture (`payment`), a refund
 * taken from a pending batch, a dispute opened (`dispute`) or won back (`dispute_reversal`),
 * and a negative net moved from one settlement to the next: `carried_forward` (in the day
 * that was negative, bringing it to 0) and `brought_forward` (in the next settlement day).
 */
export const SETTLEMENT_LINE_TYPES = ['payment', 'refund', 'dispute', 'dispute_reversal', 'carried_forward', 'brought_forward'] as const;
export type SettlementLineType = (typeof SETTLEMENT_LINE_TYPES)[number];
/** Line types that lower a settlement (shown negative). */
const NEGATIVE_LINES: ReadonlySet<SettlementLineType> = new Set(['refund', 'dispute', 'brought_forward']);

/** Signed minor units of a line (refunds, disputes and a negative net brought forward count negative). */
export const signedLineAmount = (l: Pick<SettlementLine, 'type' | 'amount'>) => (NEGATIVE_LINES.has(l.type) ? -l.amount : l.amount);

export interface SettlementRecord extends SettlementFields {
  pk: string;
  sk: string;
  gsi2pk: string;
  gsi2sk: string;
  duePk?: string;
  dueSk?: string;
  [extra: string]: unknown;
}

export interface SettlementFields {
  settlementId: string;
  merchantId: string;
  businessDate: string;
  round: number;
  /** Minor units moved to the settled balance. */
  amount: number;
  currency: string;
  transactionCount: number;
  refundCount: number;
  /** False when the day held captures recorded before lines existed (lines do not add up). */
  linesComplete: boolean;
  status: 'completed';
  settledAt: string;
}

export const SETTLEMENT_STATUSES = ['completed'] as const;

/** The event a committed settlement round emits (merchant + provider). */
export const SETTLEMENT_COMPLETED = 'settlement.completed';

/** `settlement.completed`'s data: the record's fields, and `count`, the captures the round's shards held (the deriver's `args`). */
export const settlementCompletedData = (r: SettlementFields, count: number) => ({
  settlementId: r.settlementId,
  entityId: r.merchantId,
  settlementDate: r.businessDate,
  amount: toMajor(r.amount),
  currency: r.currency,
  count,
  settledAt: r.settledAt,
});

/**
 * `settlement.completed` rides on the settlement's record (events/outbox.ts `carry`: no event
 * item in the settlement's transaction, issue 50); the stream consumer derives it from the
 * record as written, with the marker's `count` (test/unit/ledger.test.ts).
 */
export const SETTLEMENT_EVENT_DERIVERS: EventDerivers = {
  [SETTLEMENT_COMPLETED]: (item, args) => {
    const r = item as unknown as SettlementRecord;
    if (!String(r.pk).startsWith('STL#') || typeof args?.count !== 'number') return undefined;
    return { to: r.merchantId, data: settlementCompletedData(r, args.count) };
  },
};

export const settlementKey = (settlementId: string) => ({ pk: `STL#${settlementId}`, sk: 'STL' });

/** A settlement's id: one per (merchant, day, round), so a retried round writes the same record. */
export const settlementId = (merchantId: string, date: string, round: number) => `stl_${merchantId}_${date}_${round}`;

/**
 * The settlement a line is paid by, once that settlement committed: the id its round names
 * (or, before release 3, the id stamped on it). Whether it committed is the caller's read.
 */
export const lineSettlementId = (l: Pick<SettlementLine, 'merchantId' | 'settlementDate' | 'stlRound' | 'settlementId'>) =>
  l.settlementId ?? (l.stlRound !== undefined ? settlementId(l.merchantId, l.settlementDate, l.stlRound) : undefined);

/** The lines of a settlement: those of its round, or (before release 3) stamped with its id. */
const linesOfFilter = (s: Pick<SettlementRecord, 'settlementId' | 'round'>) => ({
  FilterExpression: 'stlRound = :round OR settlementId = :id',
  ExpressionAttributeValues: { ':round': s.round, ':id': s.settlementId },
});
export const merchantSettlementsPk = (merchantId: string) => `MSTL#${merchantId}`;

export const getSettlement = (settlementId: string) => getItem<SettlementRecord>(settlementKey(settlementId));

/** A settlement the merchant owns, else undefined (another merchant's is invisible). */
export async function getMerchantSettlement(merchantId: string, settlementId: string): Promise<SettlementRecord | undefined> {
  if (!settlementId || settlementId.length > 200) return undefined;
  const s = await getSettlement(settlementId);
  return s && s.merchantId === merchantId ? s : undefined;
}

/** The merchant's settlements, newest first, after `after` (already checked to be the merchant's). */
export async function listSettlements(
  merchantId: string,
  limit: number,
  after?: SettlementRecord,
): Promise<{ settlements: SettlementRecord[]; hasMore: boolean }> {
  const { items } = await queryPage({
    IndexName: 'gsi2',
    KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk < :after' : 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': merchantSettlementsPk(merchantId), ...(after ? { ':after': after.gsi2sk } : {}) },
    ScanIndexForward: false,
    Limit: limit + 1,
  });
  const rows = items as SettlementRecord[];
  return { settlements: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * The lines of one round of (merchant, day) page by page (strongly consistent, one page in
 * memory at a time): those of `round`, or (before release 3) stamped with its id.
 */
export async function queryLinePages(
  s: Pick<SettlementRecord, 'merchantId' | 'businessDate' | 'settlementId' | 'round'>,
  onPage: (lines: SettlementLine[]) => Promise<void | boolean>,
): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const { lines, next } = await settlementLinePage(s, start);
    if ((await onPage(lines)) === false) return;
    start = next;
  } while (start);
}

/** One page of a settlement's lines from `start` (`next`: undefined after the last). */
export async function settlementLinePage(
  s: Pick<SettlementRecord, 'merchantId' | 'businessDate' | 'settlementId' | 'round'>,
  start?: Record<string, unknown>,
): Promise<{ lines: SettlementLine[]; next?: Record<string, unknown> }> {
  const f = linesOfFilter(s);
  const { items, next } = await queryPage(
    {
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: f.FilterExpression,
      ExpressionAttributeValues: { ':pk': linesPk(s.merchantId, s.businessDate), ...f.ExpressionAttributeValues },
      ConsistentRead: true,
    },
    start,
  );
  return { lines: items as SettlementLine[], ...(next ? { next } : {}) };
}

/** The most lines `GET /v1/settlements/{id}` returns (~70 bytes each); an export has them all. */
export const MAX_DETAIL_LINES = 10_000;

export interface ApiLine {
  reference: string;
  type: SettlementLineType;
  amount: number;
}

export const toApiLine = (l: SettlementLine): ApiLine => ({ reference: l.reference, type: l.type, amount: toMajor(signedLineAmount(l)) });

/** A settlement's lines in posting order, at most `max`; `complete` false when more exist. */
export async function settlementLines(s: SettlementRecord, max = MAX_DETAIL_LINES): Promise<{ lines: ApiLine[]; complete: boolean }> {
  const lines: ApiLine[] = [];
  let complete = true;
  await queryLinePages(s, async (page) => {
    for (const l of page) {
      if (lines.length >= max) {
        complete = false;
        return false;
      }
      lines.push(toApiLine(l));
    }
    return true;
  });
  return { lines, complete };
}

export const toApiSettlement = (s: SettlementRecord) => ({
  settlementId: s.settlementId,
  businessDate: s.businessDate,
  amount: toMajor(s.amount),
  currency: s.currency,
  transactionCount: s.transactionCount,
  refundCount: s.refundCount,
  status: s.status,
  settledAt: s.settledAt,
});
