/**
 * THE money of a dispute (DESIGN 9.4, docs/decisions/disputes.md): the ledger entries and
 * settlement-day items a dispute's opening, reversal or loss writes in the
 * dispute's own transaction, and the carried negative net of a settlement day.
 */
import { settlementDate } from '../domain/business-days';
import { lagosDate, startOfLagosDay } from '../domain/lagos-time';
import { dueAttributes } from '../platform/due';
import type { TransactItem } from '../platform/table';
import {
  accounts,
  batchShardAdd,
  batchSk,
  DUE_SHARD,
  entryPut,
  ledgerEntryId,
  ledgerEntryKey,
  linePut,
  dayShard,
  SETTLEMENT_KIND,
  settlementDueId,
  type DisputeMovement,
  type SettlementDay,
} from './store';
import type { SettlementLineFields } from './settlement-views';
import { dayCounterAdd } from './day-counters';

/** The dispute fields the ledger needs. */
export interface DisputeMoney {
  disputeId: string;
  merchantId: string;
  merchantName?: string;
  providerId?: string;
  bankId: string;
  reference: string;
  billingRequestId: string;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  /** The dispute's creation time: the entries' key timestamp (deterministic per movement). */
  createdAt: string;
}

/**
 * The transaction items that move a dispute's money, written in the SAME transaction as the
 * dispute's change (one entry per movement and dispute, deterministic key: a replay cancels):
 *
 * - `dispute` (opened): merchant_unsettled → disputes; the batch of the merchant's next
 *   settlement day ADD −amount (it may go below zero; the unsettled balance is the pending
 *   batches' sum) and a `dispute` line there: the next settlement pays that much less.
 * - `dispute_reversal` (won): disputes → merchant_unsettled, the same two the other way
 *   (a `dispute_reversal` line).
 * - `dispute_lost`: disputes → bank:<bankId> (the customer's bank keeps it); the merchant's
 *   balance does not change again.
 *
 * Opening and reversal also count on the day counter (`dayCounterAdd`, ledger/day-counters.ts):
 * `disputed` +amount when opened, −amount when reversed (the volume report's `disputed`).
 */
export function disputeMoneyItems(d: DisputeMoney, movement: DisputeMovement, at: Date, day: SettlementDay): TransactItem[] {
  if (!Number.isSafeInteger(d.amount) || d.amount <= 0) throw new RangeError('dispute amount must be a positive integer');
  const nowIso = at.toISOString();
  const entryId = ledgerEntryId(movement, d.disputeId);
  const common = {
    ...ledgerEntryKey(d.merchantId, d.createdAt, entryId),
    entryId,
    kind: movement,
    merchantId: d.merchantId,
    amount: d.amount,
    currency: d.currency,
    reference: d.reference,
    billingRequestId: d.billingRequestId,
    disputeId: d.disputeId,
    postedAt: nowIso,
  };
  if (movement === 'dispute_lost')
    return [entryPut({ ...common, debit: accounts.disputes(d.merchantId), credit: accounts.bank(d.bankId) })];
  const opened = movement === 'dispute';
  const { date, at: dueAt } = settlementDate(at);
  const shard = dayShard(day);
  const signed = opened ? -d.amount : d.amount;
  return [
    entryPut({
      ...common,
      debit: opened ? accounts.unsettled(d.merchantId) : accounts.disputes(d.merchantId),
      credit: opened ? accounts.disputes(d.merchantId) : accounts.unsettled(d.merchantId),
      settlementDate: date,
      batchSk: batchSk(date, shard),
      stlRound: day.round + 1,
    }),
    dayCounterAdd(d, { date: lagosDate(at), shard, disputed: -signed }),
    ...dayMoveItems({
      merchantId: d.merchantId,
      date,
      dueAt,
      day,
      shard,
      amount: signed,
      currency: d.currency,
      now: nowIso,
      line: {
        ts: d.createdAt,
        entryId,
        type: movement,
        reference: d.reference,
        billingRequestId: d.billingRequestId,
        disputeId: d.disputeId,
      },
    }),
  ];
}

/**
 * A signed amount that is not a capture moved into a settlement day (a dispute, its reversal,
 * a negative net brought forward), the way a capture moves its own (captureItems): the batch
 * shard ADD conditioned on the day's settled round read (`day`), the day's due entry when it
 * has none yet, and the line naming the round that pays it.
 */
function dayMoveItems(a: {
  merchantId: string;
  date: string;
  dueAt: Date;
  day: SettlementDay;
  shard: number;
  /** Signed minor units. */
  amount: number;
  currency: string;
  now: string;
  line: Pick<SettlementLineFields, 'entryId' | 'type' | 'reference' | 'billingRequestId' | 'disputeId'> & { ts: string };
}): TransactItem[] {
  const due = a.day.due ? undefined : dueAttributes(SETTLEMENT_KIND, settlementDueId(a.merchantId, a.date), a.dueAt);
  const add = { merchantId: a.merchantId, date: a.date, currency: a.currency, now: a.now, round: a.day.round };
  const items: TransactItem[] = [
    batchShardAdd({ ...add, shard: a.shard, amount: a.amount, count: 0, due: a.shard === DUE_SHARD ? due : undefined }),
    linePut({
      merchantId: a.merchantId,
      settlementDate: a.date,
      batchSk: batchSk(a.date, a.shard),
      amount: Math.abs(a.amount),
      stlRound: a.day.round + 1,
      postedAt: a.now,
      ...a.line,
    }),
  ];
  if (due && a.shard !== DUE_SHARD) items.push(batchShardAdd({ ...add, shard: DUE_SHARD, amount: 0, count: 0, due }));
  return items;
}

/**
 * A settlement day whose net is negative (disputes beyond its payments) pays nothing and
 * carries the deficit into the merchant's next settlement day, in the settlement's own
 * transaction: a `carried_forward` line (+deficit) in the settling day, stamped with its
 * settlement (its lines then sum to 0), and on the next business day a `brought_forward`
 * line (−deficit) with its batch ADD. No ledger entry: the money stays in merchant_unsettled
 * (below zero) and the pending batches still sum to it.
 */
export function carryItems(a: {
  merchantId: string;
  date: string;
  settlementId: string;
  /** The round settling `date` (its carried_forward line is one of that round's lines). */
  round: number;
  /** Minor units, > 0: the negative net of the day. */
  deficit: number;
  currency: string;
  /** A pending batch shard of the settling day (the line's shard). */
  fromBatchSk: string;
  /** The next business day, as read (its settled round and due entry). */
  next: { date: string; day: SettlementDay };
  nowIso: string;
}): TransactItem[] {
  const ts = startOfLagosDay(a.date).toISOString();
  const line = { merchantId: a.merchantId, amount: a.deficit, reference: a.settlementId, billingRequestId: '', postedAt: a.nowIso };
  return [
    linePut({
      ...line,
      ts,
      settlementDate: a.date,
      batchSk: a.fromBatchSk,
      entryId: `carried_forward:${a.settlementId}`,
      type: 'carried_forward',
      stlRound: a.round,
    }),
    ...dayMoveItems({
      merchantId: a.merchantId,
      date: a.next.date,
      dueAt: startOfLagosDay(a.next.date),
      day: a.next.day,
      shard: dayShard(a.next.day),
      amount: -a.deficit,
      currency: a.currency,
      now: a.nowIso,
      line: { ts, entryId: `brought_forward:${a.settlementId}`, type: 'brought_forward', reference: a.settlementId, billingRequestId: '' },
    }),
  ];
}
