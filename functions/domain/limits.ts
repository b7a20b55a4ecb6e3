/**
 * Spending limits (DESIGN 5, spec rule 7 and Limits). Pure: the check, and the parameters
 * of the atomic DynamoDB updates that enforce the period limits (no client here).
 *
 * `single` caps one billing. `daily`, `weekly`, `monthly` cap the sum of succeeded plus
 * reserved (in-flight) billings of the (customer, merchant) pair in the current Lagos
 * calendar day / ISO week (Monday start) / calendar month. A billing reserves its amount
 * when it is requested (`limitConditions`) and gives it back when it is declined, expires or
 * fails (`limitRelease`, with the period keys it was reserved under). A succeeded billing
 * keeps counting. All amounts are integer minor units.
 *
 * Counter items (docs/billing-design.md), per pair (`decisionId` is deterministic per pair):
 *
 *   LIM#<decisionId> / M#<yyyy-mm>     total (the month), d<dd> (each day of the month)
 *   LIM#<decisionId> / W#<yyyy-Www>    total (the ISO week)
 *
 * Day counters live in their month's item, so an item never grows beyond 32 counters and
 * each period's item expires by TTL (`expiresAt`, epoch seconds) some time after the
 * period ends. Counters are kept for every billing of the pair, also for periods without
 * a limit, so a limit set later in a period counts the period's earlier billings.
 *
 * Atomicity: each counter update ADDs the amount under a condition that holds only if the
 * counter stays within its limit, so concurrent billings can never overspend. DynamoDB
 * condition expressions have no arithmetic, so "counter + amount <= limit" is written
 * `attribute_not_exists(#c) OR #c <= :max` with `:max = limit - amount` computed here; the
 * case "amount alone exceeds the limit" (where attribute_not_exists would wrongly pass) is
 * refused here before any update is built.
 */
import { addDays, isoWeekKey, periodRange, type PeriodKeys } from './lagos-time';

export const LIMIT_NAMES = ['single', 'daily', 'weekly', 'monthly'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
/** Spending limits in minor units; a missing (or null) limit does not apply. */
export type SpendingLimitsMinor = Partial<Record<LimitName, number | null>>;

/** Used amounts (succeeded + reserved) of the current periods, minor units; missing = 0. */
export interface UsedAmounts {
  day?: number;
  week?: number;
  month?: number;
}

export type LimitCheck = { ok: true } | { ok: false; limit: LimitName };

const PERIOD_OF = { daily: 'day', weekly: 'week', monthly: 'month' } as const;

function assertMinor(v: number, what: string): void {
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${what} must be a non-negative integer (minor units), got ${v}`);
}

const limitOf = (limits: SpendingLimitsMinor, name: LimitName): number | undefined => {
  const v = limits[name];
  if (v === undefined || v === null) return undefined;
  assertMinor(v, `limit ${name}`);
  return v;
};

/**
 * Whether a billing of `amount` fits the limits given what the current periods already
 * used. Exactly at a limit passes; one kobo over fails. The first limit exceeded is
 * reported, in the order single, daily, weekly, monthly.
 */
export function checkLimits(limits: SpendingLimitsMinor, amount: number, used: UsedAmounts = {}): LimitCheck {
  assertMinor(amount, 'amount');
  const single = limitOf(limits, 'single');
  if (single !== undefined && amount > single) return { ok: false, limit: 'single' };
  for (const name of ['daily', 'weekly', 'monthly'] as const) {
    const limit = limitOf(limits, name);
    if (limit === undefined) continue;
    const u = used[PERIOD_OF[name]] ?? 0;
    assertMinor(u, `used ${PERIOD_OF[name]}`);
    if (u + amount > limit) return { ok: false, limit: name };
  }
  return { ok: true };
}

// ---------------------------------------------------------------------------------------
// Counter items and their updates

/** TTL of a month counter: 40 days after the month ends. */
export const MONTH_COUNTER_RETENTION_SECONDS = 40 * 24 * 3600;
/** TTL of a week counter: 14 days after the week ends. */
export const WEEK_COUNTER_RETENTION_SECONDS = 14 * 24 * 3600;

export const TOTAL_ATTRIBUTE = 'total';
export const TTL_ATTRIBUTE = 'expiresAt';

/** The attribute of a day's counter in its month item: `d07` for 2026-11-07. */
export const dayAttribute = (day: string): string => `d${day.slice(8, 10)}`;

export const limitCounterPk = (decisionId: string): string => `LIM#${decisionId}`;

/** Keys of the month and week counter items of a pair for the given periods. */
export function limitCounterKeys(decisionId: string, keys: PeriodKeys): { month: CounterKey; week: CounterKey } {
  if (typeof decisionId !== 'string' || decisionId.length === 0) throw new RangeError('decisionId is required');
  return {
    month: { pk: limitCounterPk(decisionId), sk: `M#${keys.month}` },
    week: { pk: limitCounterPk(decisionId), sk: `W#${keys.week}` },
  };
}

export interface CounterKey {
  pk: string;
  sk: string;
}

/**
 * Parameters of one lib-dynamodb update (`new UpdateCommand({ TableName, ...u })`, or
 * `{ Update: { TableName, ...u } }` in TransactWriteItems).
 */
export interface CounterUpdate {
  Key: CounterKey;
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, number>;
}

/** Throws unless day, week and month name the same day's periods. */
function assertConsistent(keys: PeriodKeys): void {
  const { start } = periodRange('day', keys.day); // validates the day
  const month = periodRange('month', keys.month);
  const week = periodRange('week', keys.week);
  const t = start.getTime();
  if (t < month.start.getTime() || t >= month.end.getTime() || t < week.start.getTime() || t >= week.end.getTime()) {
    throw new RangeError(`period keys do not belong together: ${keys.day} ${keys.week} ${keys.month}`);
  }
}

/** Epoch seconds after which a counter item may be deleted by TTL. */
export function counterExpiresAt(kind: 'month' | 'week', key: string): number {
  const end = periodRange(kind, key).end.getTime() / 1000;
  return end + (kind === 'month' ? MONTH_COUNTER_RETENTION_SECONDS : WEEK_COUNTER_RETENTION_SECONDS);
}

function buildUpdates(
  decisionId: string,
  keys: PeriodKeys,
  delta: number,
  max: { day?: number; week?: number; month?: number },
): { month: CounterUpdate; week: CounterUpdate } {
  const key = limitCounterKeys(decisionId, keys);

  const monthConditions: string[] = [];
  const monthValues: Record<string, number> = { ':amt': delta, ':exp': counterExpiresAt('month', keys.month) };
  if (max.month !== undefined) {
    monthConditions.push('(attribute_not_exists(#total) OR #total <= :monthMax)');
    monthValues[':monthMax'] = max.month;
  }
  if (max.day !== undefined) {
    monthConditions.push('(attribute_not_exists(#day) OR #day <= :dayMax)');
    monthValues[':dayMax'] = max.day;
  }
  const month: CounterUpdate = {
    Key: key.month,
    UpdateExpression: 'ADD #total :amt, #day :amt SET #exp = :exp',
    ExpressionAttributeNames: { '#total': TOTAL_ATTRIBUTE, '#day': dayAttribute(keys.day), '#exp': TTL_ATTRIBUTE },
    ExpressionAttributeValues: monthValues,
  };
  if (monthConditions.length > 0) month.ConditionExpression = monthConditions.join(' AND ');

  const weekValues: Record<string, number> = { ':amt': delta, ':exp': counterExpiresAt('week', keys.week) };
  const week: CounterUpdate = {
    Key: key.week,
    UpdateExpression: 'ADD #total :amt SET #exp = :exp',
    ExpressionAttributeNames: { '#total': TOTAL_ATTRIBUTE, '#exp': TTL_ATTRIBUTE },
    ExpressionAttributeValues: weekValues,
  };
  if (max.week !== undefined) {
    week.ConditionExpression = '(attribute_not_exists(#total) OR #total <= :weekMax)';
    weekValues[':weekMax'] = max.week;
  }
  return { month, week };
}

/**
 * The reservation of `amount` against the pair's counters for the periods `keys` (from
 * `periodKeys(now)`; store them on the billing so the release hits the same counters).
 *
 * Refuses without building anything when the amount alone breaks a limit (single, or a
 * period limit smaller than the amount). Otherwise returns the two updates to run
 * atomically with the billing (one TransactWriteItems): the month item ADDs to `total`
 * and to the day's `dNN` with conditions for the monthly and daily limits that are set,
 * the week item ADDs to `total` with the weekly condition. A failed condition means the
 * billing would exceed a limit (403); to say which, read the items
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`) and call
 * `checkLimits(limits, amount, usedFromCounters(keys, month, week))`.
 */
export function limitConditions(
  decisionId: string,
  limits: SpendingLimitsMinor,
  amount: number,
  keys: PeriodKeys,
): { ok: true; updates: { month: CounterUpdate; week: CounterUpdate } } | { ok: false; limit: LimitName } {
  assertConsistent(keys);
  const alone = checkLimits(limits, amount);
  if (!alone.ok) return alone;
  const max: { day?: number; week?: number; month?: number } = {};
  for (const name of ['daily', 'weekly', 'monthly'] as const) {
    const limit = limitOf(limits, name);
    if (limit !== undefined) max[PERIOD_OF[name]] = limit - amount; // >= 0 after checkLimits
  }
  return { ok: true, updates: buildUpdates(decisionId, keys, amount, max) };
}

/**
 * The release of a reservation (declined, expired, failed): the same counters ADD
 * `-amount`, no condition. `keys` are the ones the amount was reserved under (not "now"'s:
 * a billing reserved at 23:59 and expiring at 00:09 releases yesterday's day counter).
 * Run it in the same transaction as the status change that justifies it (conditioned on
 * `status = pending`), so a reservation is released at most once.
 */
export function limitRelease(decisionId: string, amount: number, keys: PeriodKeys): { month: CounterUpdate; week: CounterUpdate } {
  assertConsistent(keys);
  assertMinor(amount, 'amount');
  return buildUpdates(decisionId, keys, -amount, {});
}

/** Used amounts of the periods `keys` from the counter items (either may be missing). */
export function usedFromCounters(
  keys: PeriodKeys,
  monthItem: Record<string, unknown> | undefined,
  weekItem: Record<string, unknown> | undefined,
): Required<UsedAmounts> {
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    day: num(monthItem?.[dayAttribute(keys.day)]),
    week: num(weekItem?.[TOTAL_ATTRIBUTE]),
    month: num(monthItem?.[TOTAL_ATTRIBUTE]),
  };
}

// ---------------------------------------------------------------------------------------
// The pair's counter item (release 3): one item per pair instead of a month and a week item

/**
 * Since release 3 a pair's counters live in ONE item, `LIM#<decisionId>` / `C`, written once
 * per billing instead of two (docs/decisions/write-cost.md):
 *
 *   m<yyyy-mm>    the month's total (every month of the current Lagos year: a yearly limit
 *                 set later starts from them, DESIGN 8.5)
 *   w<yyyy-Www>   the ISO week's total (the current and the last few weeks)
 *   d<yyyy-mm-dd> the day's total (the current and the last few days)
 *   lastUsed      the last agreement or recurring billing's time (the decision's `lastUsed`)
 *   decVersion    the decision's version, set by every decision change in its own
 *                 transaction: a billing conditioned on it needs no ConditionCheck of the
 *                 decision (a change in between cancels it)
 *   lim           1 once the item counts (new pairs from the start; a pair counted by the
 *                 month/week items before release 3 copies the current periods' totals from
 *                 them on its first billing since)
 *
 * A reservation ADDs to the three current periods under the limits' conditions (as the
 * month/week items did) and removes the days and weeks older than PAIR_RETAIN_DAYS /
 * PAIR_RETAIN_WEEKS (and months of earlier years), which keeps the item under 1 KB; a
 * release (declined, expired, failed) gives the amount back to the periods it was reserved
 * under. (A billing still pending after those days would give back to a period already
 * removed: it only recreates a total of a period that is over, removed again by the next
 * reservation; no limit reads it.)
 */
export const PAIR_RETAIN_DAYS = 7;
export const PAIR_RETAIN_WEEKS = 3;
export const PAIR_COUNTER_SK = 'C';
export const pairCounterKey = (decisionId: string): CounterKey => ({ pk: limitCounterPk(decisionId), sk: PAIR_COUNTER_SK });
export const PAIR_COUNTING = 'lim';
export const DECISION_VERSION = 'decVersion';
export const LAST_USED = 'lastUsed';
export const monthTotal = (month: string) => `m${month}`;
export const weekTotal = (week: string) => `w${week}`;
export const dayTotal = (day: string) => `d${day}`;

const PERIOD_ATTR = /^([mwd])(\d{4}-(?:\d{2}|W\d{2})(?:-\d{2})?)$/;

/** Whether the pair's counter item counts (else its totals are on the month/week items). */
export const pairCounts = (item: Record<string, unknown> | undefined): boolean => item?.[PAIR_COUNTING] === 1;

/** Used amounts of the periods `keys` from the pair's counter item. */
export function usedFromPairCounter(keys: PeriodKeys, item: Record<string, unknown> | undefined): Required<UsedAmounts> {
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { day: num(item?.[dayTotal(keys.day)]), week: num(item?.[weekTotal(keys.week)]), month: num(item?.[monthTotal(keys.month)]) };
}

/** The month totals of a Lagos year on the pair's counter item, by month (`2026-11`). */
export function monthTotalsOf(item: Record<string, unknown> | undefined, year: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(item ?? {})) {
    const m = PERIOD_ATTR.exec(k);
    if (m?.[1] === 'm' && m[2]!.startsWith(`${year}-`) && typeof v === 'number') out.set(m[2]!, v);
  }
  return out;
}

/** Period attributes of the item no longer kept at `keys`: days and weeks older than the retention, months of earlier years. */
export function periodsOver(item: Record<string, unknown> | undefined, keys: PeriodKeys): string[] {
  const dayCut = addDays(keys.day, -PAIR_RETAIN_DAYS);
  const weekCut = isoWeekKey(addDays(keys.day, -7 * PAIR_RETAIN_WEEKS));
  return Object.keys(item ?? {}).filter((k) => {
    const m = PERIOD_ATTR.exec(k);
    if (!m) return false;
    const [, kind, period] = m as unknown as [string, string, string];
    if (kind === 'd') return period < dayCut;
    if (kind === 'w') return period < weekCut;
    return period.slice(0, 4) < keys.month.slice(0, 4);
  });
}

export interface PairCounterUpdate extends Omit<CounterUpdate, 'ExpressionAttributeValues'> {
  ExpressionAttributeValues: Record<string, unknown>;
}

export interface PairReservationOptions {
  /** The pair's counter item as read (strongly consistent), undefined when there is none. */
  seen: Record<string, unknown> | undefined;
  /** For a pair whose counter item does not count yet: its month and week items of `keys`. */
  legacy?: { month: Record<string, unknown> | undefined; week: Record<string, unknown> | undefined };
  /** Condition the reservation on the decision's version (`decVersion = :v`); or on no decision (`attribute_not_exists(decVersion)`). */
  decisionVersion?: number | null;
  /** Write `decVersion` (a billing that checked the decision itself, in the same transaction). */
  setDecisionVersion?: number;
  /** ISO time to record as `lastUsed` (agreement and recurring billings). */
  lastUsed?: string;
}

/**
 * The reservation of `amount` on the pair's counter item for the periods `keys`: refused
 * without building anything when the amount alone breaks a limit (or, for a pair counted on
 * the month/week items so far, when their totals plus the amount do); else the one update to
 * run with the billing. A failed condition is a limit, or (with `decisionVersion`) a changed
 * decision: read `decVersion` from the item the cancellation returns.
 */
export function pairReservation(
  decisionId: string,
  limits: SpendingLimitsMinor,
  amount: number,
  keys: PeriodKeys,
  opts: PairReservationOptions,
): { ok: true; update: PairCounterUpdate } | { ok: false; limit: LimitName } {
  assertConsistent(keys);
  const names: Record<string, string> = {
    '#m': monthTotal(keys.month),
    '#w': weekTotal(keys.week),
    '#d': dayTotal(keys.day),
  };
  const values: Record<string, unknown> = {};
  const conditions: string[] = [];
  const set: string[] = [];
  if (opts.lastUsed !== undefined) {
    names['#lu'] = LAST_USED;
    values[':lu'] = opts.lastUsed;
    set.push('#lu = :lu');
  }
  if (opts.setDecisionVersion !== undefined) {
    names['#dv'] = DECISION_VERSION;
    values[':sdv'] = opts.setDecisionVersion;
    set.push('#dv = :sdv');
  }
  if (opts.decisionVersion !== undefined) {
    names['#dv'] = DECISION_VERSION;
    if (opts.decisionVersion === null) conditions.push('attribute_not_exists(#dv)');
    else {
      values[':dv'] = opts.decisionVersion;
      conditions.push('#dv = :dv');
    }
  }
  const over = periodsOver(opts.seen, keys);
  const remove = over.map((a, i) => {
    names[`#x${i}`] = a;
    return `#x${i}`;
  });
  let expression: string;
  if (pairCounts(opts.seen)) {
    const alone = checkLimits(limits, amount);
    if (!alone.ok) return alone;
    values[':amt'] = amount;
    for (const name of ['daily', 'weekly', 'monthly'] as const) {
      const limit = limitOf(limits, name);
      if (limit === undefined) continue;
      const a = { daily: '#d', weekly: '#w', monthly: '#m' }[name];
      values[`:${name}Max`] = limit - amount;
      conditions.push(`(attribute_not_exists(${a}) OR ${a} <= :${name}Max)`);
    }
    expression = `ADD #m :amt, #w :amt, #d :amt${set.length ? ` SET ${set.join(', ')}` : ''}`;
  } else {
    // First billing counted here: the current periods' totals come from the month/week items.
    const used = usedFromCounters(keys, opts.legacy?.month, opts.legacy?.week);
    const check = checkLimits(limits, amount, used);
    if (!check.ok) return check;
    names['#lim'] = PAIR_COUNTING;
    Object.assign(values, { ':m': used.month + amount, ':w': used.week + amount, ':d': used.day + amount, ':one': 1 });
    conditions.push('attribute_not_exists(#lim)');
    expression = `SET #m = :m, #w = :w, #d = :d, #lim = :one${set.length ? `, ${set.join(', ')}` : ''}`;
  }
  if (remove.length) expression += ` REMOVE ${remove.join(', ')}`;
  return {
    ok: true,
    update: {
      Key: pairCounterKey(decisionId),
      UpdateExpression: expression,
      ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * The release of a reservation from the pair's counter item: ADD `-amount` to the periods it
 * was reserved under, conditioned on the item counting (else the amount is on the month/week
 * items: `limitRelease`).
 */
export function pairRelease(decisionId: string, amount: number, reserved: PeriodKeys): PairCounterUpdate {
  assertConsistent(reserved);
  assertMinor(amount, 'amount');
  return {
    Key: pairCounterKey(decisionId),
    UpdateExpression: 'ADD #d :neg, #w :neg, #m :neg',
    ConditionExpression: 'attribute_exists(#lim)',
    ExpressionAttributeNames: {
      '#lim': PAIR_COUNTING,
      '#d': dayTotal(reserved.day),
      '#w': weekTotal(reserved.week),
      '#m': monthTotal(reserved.month),
    },
    ExpressionAttributeValues: { ':neg': -amount },
  };
}
