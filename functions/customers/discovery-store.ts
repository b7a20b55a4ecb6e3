/**
 * Discovery budgets (DESIGN 10.5), counted without a DynamoDB write per look-up: a batched
 * counter. The rules are domain/discovery.ts; docs/decisions/discovery-budgets.md says why.
 *
 *   DISC#<merchantId> / D#<yyyy-mm-dd>   lookups, misses (the merchant's Lagos day),
 *                                        limitedAt (set once, when a limit was reached),
 *                                        expiresAt (TTL, two days after the day)
 *
 * Each Lambda instance keeps, per merchant and day, the shared count as it last read or wrote
 * it and the look-ups it has counted but not written yet. It writes them (one UpdateItem that
 * ADDs both numbers and returns the new totals) on its first look-up, every FLUSH_EVERY
 * look-ups, on the first look-up FLUSH_MS after its last write, and on EVERY look-up once the
 * count it knows is within FLUSH_EVERY of either limit (then it also reads the item,
 * strongly consistent, before judging). A look-up is judged by the shared count it knows plus
 * its own unwritten ones. So far from the limits a look-up costs a write only one time in
 * FLUSH_EVERY; near them the refusal is exact up to what other instances have not written yet:
 * at most FLUSH_EVERY - 1 look-ups per concurrently warm instance (each flushes at least every
 * FLUSH_EVERY look-ups and every FLUSH_MS of its own traffic). An instance reclaimed by Lambda
 * loses at most FLUSH_EVERY - 1 counted look-ups.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import {
  discoveryDay,
  discoveryLimitsOf,
  discoveryResetAt,
  nearLimit,
  reachedLimit,
  secondsToReset,
  type DiscoveryCount,
  type DiscoveryLimitName,
  type DiscoveryLimits,
} from '../domain/discovery';
import { startOfLagosDay } from '../domain/lagos-time';
import { commit } from '../events/outbox';
import { auditPut, type AuditContext } from '../identity/audit';
import { clockNow } from '../platform/clock';
import { db } from '../platform/clients';
import { logger } from '../platform/log';
import { metric } from '../platform/metrics';
import { discoveryLimited } from '../platform/errors';
import { cancellationCodes, getItem, isTransactionCancelled, nowIso, table, type TransactItem } from '../platform/table';

/** Look-ups an instance counts before it writes them (also the margin of `nearLimit`). */
export const FLUSH_EVERY = 10;
/** The longest an instance keeps look-ups unwritten while it keeps serving look-ups (ms). */
export const FLUSH_MS = 5_000;
/** Bounds the per-instance state (one entry per merchant seen). */
const MAX_LOCAL_ENTRIES = 10_000;
/** The counter item is kept two days after its day (TTL, epoch seconds). */
const RETENTION_SECONDS = 2 * 86_400;

export const discoveryCounterKey = (merchantId: string, day: string) => ({ pk: `DISC#${merchantId}`, sk: `D#${day}` });

/** The merchant item's fields this needs (a participant item). */
export interface DiscoveryMerchant {
  id: string;
  providerId?: string;
  discoveryDailyLimit?: unknown;
  discoveryMissLimit?: unknown;
}

interface LocalCount {
  day: string;
  shared: DiscoveryCount;
  unwritten: DiscoveryCount;
  lastWriteMs: number;
  /** This instance recorded (or saw recorded) the day's limit. */
  limited: boolean;
}
const local = new Map<string, LocalCount>();

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const countOf = (item: Record<string, unknown> | undefined): DiscoveryCount => ({ lookups: num(item?.lookups), misses: num(item?.misses) });
const plus = (a: DiscoveryCount, b: DiscoveryCount): DiscoveryCount => ({ lookups: a.lookups + b.lookups, misses: a.misses + b.misses });

/** The deployment's default limits (DISCOVERY_DAILY_LIMIT, DISCOVERY_MISS_LIMIT). */
export const defaultDiscoveryLimits = (): DiscoveryLimits => ({ daily: config.discoveryDailyLimit(), misses: config.discoveryMissLimit() });

/** A merchant's limits: its provider's, else the defaults. */
export const limitsOfMerchant = (m: DiscoveryMerchant | undefined) => discoveryLimitsOf(m, defaultDiscoveryLimits());

function stateOf(merchantId: string, day: string): LocalCount {
  let s = local.get(merchantId);
  if (!s || s.day !== day) {
    if (!s && local.size >= MAX_LOCAL_ENTRIES) local.clear();
    s = {
      day,
      shared: { lookups: 0, misses: 0 },
      unwritten: { lookups: 0, misses: 0 },
      lastWriteMs: Number.NEGATIVE_INFINITY,
      limited: false,
    };
    local.set(merchantId, s);
  }
  return s;
}

/** A look-up let through by `admitDiscovery`: count it with `countDiscovery` once its outcome is known. */
export interface DiscoveryTicket {
  merchant: DiscoveryMerchant;
  limits: DiscoveryLimits;
  day: string;
  now: Date;
}

/**
 * Whether the merchant may make one more look-up now (its clock's Lagos day). Refused: 429
 * `Discovery limit reached` with Retry-After to the next Lagos midnight. Writes nothing; near a
 * limit it reads the shared count.
 */
export async function admitDiscovery(merchant: DiscoveryMerchant): Promise<DiscoveryTicket> {
  const now = clockNow();
  const day = discoveryDay(now);
  const limits = limitsOfMerchant(merchant);
  const s = stateOf(merchant.id, day);
  if (!reachedLimit(plus(s.shared, s.unwritten), limits) && nearLimit(plus(s.shared, s.unwritten), limits, FLUSH_EVERY)) {
    s.shared = countOf(await getItem(discoveryCounterKey(merchant.id, day)));
  }
  if (reachedLimit(plus(s.shared, s.unwritten), limits)) throw discoveryLimited(secondsToReset(now));
  return { merchant, limits, day, now };
}

/**
 * Count an admitted look-up (`found`: it found a customer). Writes the instance's count when
 * the batching rule says so; the write that shows a limit reached records it once per
 * merchant-day (`recordDiscoveryLimited`).
 */
export async function countDiscovery(ticket: DiscoveryTicket, found: boolean, audit: AuditContext): Promise<void> {
  const { merchant, limits, day } = ticket;
  const s = stateOf(merchant.id, day);
  s.unwritten = plus(s.unwritten, { lookups: 1, misses: found ? 0 : 1 });
  const nowMs = Date.now();
  const known = plus(s.shared, s.unwritten);
  const due =
    s.unwritten.lookups >= FLUSH_EVERY ||
    nowMs - s.lastWriteMs >= FLUSH_MS ||
    nearLimit(known, limits, FLUSH_EVERY) ||
    !!reachedLimit(known, limits);
  if (!due) return;
  const delta = s.unwritten;
  s.unwritten = { lookups: 0, misses: 0 };
  s.lastWriteMs = nowMs;
  let out;
  try {
    out = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: discoveryCounterKey(merchant.id, day),
        UpdateExpression: 'ADD lookups :l, misses :m SET expiresAt = if_not_exists(expiresAt, :e)',
        ExpressionAttributeValues: {
          ':l': delta.lookups,
          ':m': delta.misses,
          ':e': Math.floor(startOfLagosDay(day).getTime() / 1000) + 86_400 + RETENTION_SECONDS,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
  } catch (e) {
    s.unwritten = plus(s.unwritten, delta); // written with the next one
    throw e;
  }
  s.shared = countOf(out.Attributes);
  const reached = reachedLimit(s.shared, limits);
  if (!reached || s.limited) return;
  s.limited = true;
  if (out.Attributes?.limitedAt !== undefined) return;
  // The look-up is answered whatever happens here; a lost race is retried by the next write.
  s.limited = await recordDiscoveryLimited(ticket, reached, s.shared, audit, true).catch((e: unknown) => {
    logger.warn('discovery limit not recorded yet', { merchantId: merchant.id, error: String(e) });
    return false;
  });
}

/**
 * The merchant reached a limit: `merchant.discovery_limited` (to the merchant; the outbox adds
 * its provider) and the audit entry in the provider's log and the merchant's own, in one
 * transaction. `once`: conditioned on the day's counter not having recorded it yet (so it
 * happens once per merchant-day whatever the instances); the sandbox's magic look-up records
 * it every time without touching the counter.
 */
export async function recordDiscoveryLimited(
  ticket: DiscoveryTicket,
  limit: DiscoveryLimitName,
  count: DiscoveryCount,
  audit: AuditContext,
  once: boolean,
): Promise<boolean> {
  const { merchant, limits, day, now } = ticket;
  const items: TransactItem[] = [];
  if (once) {
    items.push({
      Update: {
        TableName: table(),
        Key: discoveryCounterKey(merchant.id, day),
        UpdateExpression: 'SET limitedAt = :at',
        ConditionExpression: 'attribute_not_exists(limitedAt)',
        ExpressionAttributeValues: { ':at': nowIso() },
      },
    });
  }
  if (merchant.providerId) items.push(auditPut(merchant.providerId, audit, 'merchant.discovery_limited', merchant.id));
  items.push(auditPut(merchant.id, audit, 'merchant.discovery_limited', merchant.id));
  const data = {
    entityId: merchant.id,
    limit,
    day,
    lookups: count.lookups,
    misses: count.misses,
    discoveryDailyLimit: limits.daily,
    discoveryMissLimit: limits.misses,
    resetsAt: discoveryResetAt(now).toISOString(),
  };
  try {
    await commit(items, [{ type: 'merchant.discovery_limited', to: merchant.id, data }]);
  } catch (e) {
    // Another instance recorded the day's limit first.
    if (once && isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return true;
    throw e;
  }
  metric('DiscoveryLimited');
  return true;
}

/**
 * One look-up under the merchant's budget: admitted (or 429), made, counted (`found`: it
 * returned something). `simulateLimit` (the sandbox's magic look-up, DESIGN 10.5): after the
 * real budget admits it, it is refused as if a limit had been reached, with the event and the
 * audit entry, every time and without counting (integrators test their handling with it).
 */
export async function discover<T>(
  merchant: DiscoveryMerchant,
  audit: AuditContext,
  lookup: () => Promise<T | undefined>,
  simulateLimit = false,
): Promise<T | undefined> {
  const ticket = await admitDiscovery(merchant);
  if (simulateLimit) {
    const s = stateOf(merchant.id, ticket.day);
    await recordDiscoveryLimited(ticket, 'misses', plus(s.shared, s.unwritten), audit, false);
    throw discoveryLimited(secondsToReset(ticket.now));
  }
  const found = await lookup();
  await countDiscovery(ticket, found !== undefined, audit);
  return found;
}
