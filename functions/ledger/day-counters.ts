/**
 * Day counters: what moved on one Lagos day, per (customer's bank, merchant, shard), written in
 * the transaction that moves the money (docs/decisions/volume-report.md). One item serves
 * three readers:
 *
 *   BREP#<bankId>#<day>#<p> / M#<merchantId>#<shard>   the bank's settlement report and volume (the table)
 *     gsi5 MVOL#<merchantId> / lsk <day>#<merchantId>#<bankId>#<shard>        the merchant's volume
 *     gsi7 PVOL#<providerId>#<p> / lsk <day>#<merchantId>#<bankId>#<shard>    its provider's volume
 *
 * The two volume lists are on the keys-only indexes (since issue 50; gsi3 / gsi4, projection
 * ALL, before): an index copy is written when an item's keys are, at its first count, and not
 * again at every ADD (DynamoDB writes an index entry only when what it projects changes), so
 * a counter's later counts cost its base-table write only; the reports read each page's items
 * by key. p, the item's bank-day partition, stays random: a hash of the merchant (one item per
 * merchant-day, its copies written once) was tried and put a few merchants' days on one
 * partition, over 1,000 WCU/s in the bench's 10.6 count (docs/decisions/volume-report.md), so a
 * later count reuses its item (and writes no copy) when it draws the same p. A counter written before still has its
 * gsi3 / gsi4 keys: the next count of it moves it to gsi5 / gsi7 (REMOVE in the same update),
 * and the reports read both kinds, each item once (`countersOf`).
 *
 * The provider's key carries the item's bank partition p: one key per provider took every bill
 * of all its merchants (the largest provider's 30 % of 500 bills/s: 150 write units a second on
 * one GSI partition, DESIGN 9.6 allows 100); p is part of the item's key, so an item's copy
 * never moves between provider partitions.
 *
 * `captured`/`capturedCount` (a debit succeeded that day), `refunded`/`refundCount` (a refund
 * completed that day), `disputed`/`disputeCount` (a dispute took the amount out of the
 * merchant's balance that day; a reversal adds a negative amount). The shard is the balance
 * shard the money transaction picked (ledger/store.ts `randomShard`), so the counters spread
 * like the balances.
 *
 * `dayCounterAdd` is THE way a money transaction counts itself: it adds its item to the
 * transaction's items (one small item, no extra request).
 */
import { randomInt } from 'node:crypto';
import { toMajor } from '../domain/money';
import { addDays } from '../domain/lagos-time';
import { batchGetByKey, itemKeyOf, queryPartitions, table, type TransactItem } from '../platform/table';

export interface BankDayCounter {
  pk: string;
  sk: string;
  bankId: string;
  merchantId: string;
  merchantName?: string;
  providerId?: string;
  date: string;
  captured?: number;
  capturedCount?: number;
  refunded?: number;
  refundCount?: number;
  disputed?: number;
  disputeCount?: number;
  [extra: string]: unknown;
}

/**
 * A bank's day is spread over partitions `BREP#<bankId>#<day>#<p>` (p random in
 * 0..BANK_DAY_PARTITIONS-1): the largest bank's captures at 500 bills/s are ~400 write units a
 * second, one partition each would take them all (DESIGN 9.6: none over 100). `partition`
 * undefined: the one days counted before release 3 used.
 */
export const BANK_DAY_PARTITIONS = 8;
export const bankDayPk = (bankId: string, date: string, partition?: number) =>
  `BREP#${bankId}#${date}${partition === undefined ? '' : `#${partition}`}`;
/** Every partition of a bank's day, the pre-release-3 one first. */
export const bankDayPartitions = (bankId: string, date: string) => [
  bankDayPk(bankId, date),
  ...Array.from({ length: BANK_DAY_PARTITIONS }, (_, p) => bankDayPk(bankId, date, p)),
];
export const merchantVolumePk = (merchantId: string) => `MVOL#${merchantId}`;
export const providerVolumePk = (providerId: string, partition: number) => `PVOL#${providerId}#${partition}`;

/** The parties of the money that moved: a bill's (or its refund's or dispute's). */
export interface MoneyParties {
  bankId: string;
  merchantId: string;
  merchantName?: string;
  providerId?: string;
}

/**
 * The one item a money transaction adds to count itself on `date` (a Lagos day): amounts in
 * minor units; a positive amount also counts one movement of its kind, a negative one
 * (a reversal) takes one back. `partition`: the bank-day partition (random when absent; tests
 * name one to count on a given item).
 */
export function dayCounterAdd(
  parties: MoneyParties,
  a: { date: string; shard: number; captured?: number; refunded?: number; disputed?: number; partition?: number },
): TransactItem {
  const shard = a.shard;
  const amount = (v: number | undefined) => v ?? 0;
  const count = (v: number | undefined) => Math.sign(v ?? 0);
  const sets = [
    'bankId = :b',
    'merchantId = :m',
    '#date = :d',
    'merchantName = if_not_exists(merchantName, :n)',
    'gsi5pk = :mvol',
    'lsk = :vsk',
    ...(parties.providerId ? ['providerId = :p', 'gsi7pk = :pvol'] : []),
  ];
  const partition = a.partition ?? randomInt(BANK_DAY_PARTITIONS);
  return {
    Update: {
      TableName: table(),
      Key: { pk: bankDayPk(parties.bankId, a.date, partition), sk: `M#${parties.merchantId}#${shard}` },
      // A counter written before issue 50 leaves gsi3 / gsi4 (REMOVE of absent attributes changes nothing).
      UpdateExpression: `ADD captured :c, capturedCount :cc, refunded :r, refundCount :rc, disputed :x, disputeCount :xc SET ${sets.join(', ')} REMOVE gsi3pk, gsi3sk, gsi4pk, gsi4sk`,
      ExpressionAttributeNames: { '#date': 'date' },
      ExpressionAttributeValues: {
        ':c': amount(a.captured),
        ':cc': count(a.captured),
        ':r': amount(a.refunded),
        ':rc': count(a.refunded),
        ':x': amount(a.disputed),
        ':xc': count(a.disputed),
        ':b': parties.bankId,
        ':m': parties.merchantId,
        ':d': a.date,
        ':n': parties.merchantName ?? '',
        ':mvol': merchantVolumePk(parties.merchantId),
        ':vsk': `${a.date}#${parties.merchantId}#${parties.bankId}#${shard}`,
        ...(parties.providerId ? { ':p': parties.providerId, ':pvol': providerVolumePk(parties.providerId, partition) } : {}),
      },
    },
  };
}

// ---------------------------------------------------------------------------------------
// The volume report (DESIGN 9.3)

/** The longest report (DESIGN 9.3). */
export const MAX_VOLUME_DAYS = 92;

export interface VolumeDay {
  date: string;
  count: number;
  amount: number;
  refunded: number;
  disputed: number;
}

/** How many days from `from` to `to`, both included (YYYY-MM-DD dates). */
export const spanDays = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

/** The Lagos days from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) days.push(d);
  return days;
}

/** Whose volume: a merchant's (a provider acting for one is that merchant), a provider's, a bank's. */
export type VolumeOwner = { kind: 'merchant' | 'provider' | 'bank'; id: string };

/** What the reports read of a counter (`date` is a reserved word: `#date` in an expression). */
const COUNTER_FIELDS = ['pk', 'sk', 'date', 'captured', 'capturedCount', 'refunded', 'disputed'];
const COUNTER_ATTRS = COUNTER_FIELDS.map((f) => (f === 'date' ? '#date' : f)).join(', ');

/**
 * The counters of the owner's days from `from` to `to`: the bank's day partitions; a
 * merchant's or provider's volume list on the keys-only index (the items then read by key)
 * and, for counters not counted since issue 50, on the index of before. Each item once: one
 * that moved between the two reads is taken as read by key.
 */
async function countersOf(owner: VolumeOwner, days: string[]): Promise<BankDayCounter[]> {
  const from = days[0]!;
  const to = days[days.length - 1]!;
  if (owner.kind === 'bank') {
    return queryPartitions<BankDayCounter>(
      days.flatMap((day) => bankDayPartitions(owner.id, day)),
      { ExpressionAttributeNames: { '#date': 'date' }, ProjectionExpression: COUNTER_ATTRS },
      { maxItems: 1_000_000, concurrency: 16 },
    );
  }
  const merchant = owner.kind === 'merchant';
  const pks = merchant
    ? [merchantVolumePk(owner.id)]
    : Array.from({ length: BANK_DAY_PARTITIONS }, (_, p) => providerVolumePk(owner.id, p));
  const range = (index: string, sk: string) => ({
    IndexName: index,
    KeyConditionExpression: `${index}pk = :pk AND ${sk} BETWEEN :lo AND :hi`,
    ExpressionAttributeValues: { ':lo': `${from}#`, ':hi': `${to}#~` },
  });
  const [keys, before] = await Promise.all([
    queryPartitions<{ pk: string; sk: string }>(pks, range(merchant ? 'gsi5' : 'gsi7', 'lsk'), { maxItems: 1_000_000 }),
    queryPartitions<BankDayCounter>(
      pks,
      {
        ...range(merchant ? 'gsi3' : 'gsi4', merchant ? 'gsi3sk' : 'gsi4sk'),
        ExpressionAttributeNames: { '#date': 'date' },
        ProjectionExpression: COUNTER_ATTRS,
      },
      { maxItems: 1_000_000 },
    ),
  ]);
  const counted = await batchGetByKey<BankDayCounter>(keys, COUNTER_FIELDS);
  return [...counted.values(), ...before.filter((c) => !counted.has(itemKeyOf(c)))];
}

/** One entry per day from `from` to `to` (zeros included), amounts in major units. */
export async function volumeReport(owner: VolumeOwner, from: string, to: string): Promise<VolumeDay[]> {
  const days = daysBetween(from, to);
  const sums = new Map(days.map((date) => [date, { date, count: 0, amount: 0, refunded: 0, disputed: 0 }]));
  for (const c of await countersOf(owner, days)) {
    const day = sums.get(c.date);
    if (!day || !c.pk.startsWith('BREP#')) continue;
    day.count += c.capturedCount ?? 0;
    day.amount += c.captured ?? 0;
    day.refunded += c.refunded ?? 0;
    day.disputed += c.disputed ?? 0;
  }
  return days.map((d) => {
    const s = sums.get(d)!;
    return { date: d, count: s.count, amount: toMajor(s.amount), refunded: toMajor(s.refunded), disputed: toMajor(s.disputed) };
  });
}
