/**
 * Recurring schedules: the item and how it is read and shown (the read side; the workflow,
 * i.e. create, pause/resume/cancel and the run state machine, is store.ts).
 *
 *   SCHED#<scheduleId> / SCHED
 *     gsi2 MSCHED#<merchantId> / <createdAt>#<id>   the merchant's list
 *     gsi3 BSUB#<bankId>       / <createdAt>#<id>   the bank's subscriptions list
 *     due  recurring.run at nextBillingDate while active; at the answer deadline while a
 *          run's billing is at the bank; "now" once the billing's outcome is recorded
 *          and the run still has to be finished
 */
import type { AmendmentTerms } from '../decisions/intents';
import { toMajor } from '../domain/money';
import { newId } from '../domain/ids';
import type { Frequency } from '../domain/schedule-dates';
import type { CompletionReason, ScheduleDates } from './policy';
import type { BillItem } from '../bills/types';
import { getItem, queryPages, type Item } from '../platform/table';
import { equalsFilter, indexRange, readRange, type ListRange } from '../platform/list-page';
import { parseItem, type Shape } from '../platform/parse';

export const SCHEDULE_ID_PREFIX = 'sch';
export const SCHEDULE_STATUSES = ['active', 'paused', 'cancelled', 'completed', 'processing'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** Why a run failed without a billing, or why the service paused a schedule. */
export type RunRefusal =
  | 'spending_limit_exceeded'
  | 'permission_revoked'
  | 'merchant_blocked'
  | 'merchant_not_premium'
  | 'approval_not_valid'
  | 'approval_no_payments_left';

/** A schedule's amendment while the bank's answer is awaited (amounts in minor units). */
export interface PendingAmendment {
  amendmentId: string;
  intentId: string;
  from: AmendmentTerms;
  to: AmendmentTerms;
  requestedAt: string;
}

/** The API shape of a pending amendment (major units). */
export const amendmentView = (a: Pick<PendingAmendment, 'amendmentId' | 'from' | 'to'> & { requestedAt?: string }) => ({
  amendmentId: a.amendmentId,
  from: { ...a.from, amount: toMajor(a.from.amount) },
  to: { ...a.to, amount: toMajor(a.to.amount) },
  ...(a.requestedAt ? { requestedAt: a.requestedAt } : {}),
});

export interface ScheduleItem {
  pk: string;
  sk: 'SCHED';
  type: 'schedule';
  scheduleId: string;
  merchantId: string;
  providerId?: string;
  bankId: string;
  customerId: string;
  /** The bank's own customer identifier (immutable; sent in each run's billing.request). */
  clientRef?: string;
  decisionId: string;
  /** The merchant's own agreement phrase the schedule bills under (spec field). */
  agreementPhrase: string;
  /** Minor units. */
  amount: number;
  currency: string;
  frequency: Frequency;
  interval: number;
  status: ScheduleStatus;
  startDate: string;
  endDate: string | null;
  /** Occurrence 0 of the date math (= startDate). */
  anchor: string;
  /** When the next run is due; null once completed or cancelled. */
  nextBillingDate: string | null;
  /** The period nextBillingDate belongs to, and the attempt within it (0 = first try). */
  occurrence: number;
  attempt: number;
  /** The next run's sequence number (a run id is (scheduleId, seq)). */
  seq: number;
  totalBillings: number;
  maxBillings: number | null;
  failedAttempts: number;
  description: string | null;
  /** The merchant's free-form metadata, as JSON text (never interpreted). */
  metadataJson: string | null;
  createdAt: string;
  updatedAt: string;
  pausedAt: string | null;
  pauseReason: string | null;
  pausedBy: 'merchant' | 'service' | null;
  /** When a paused schedule resumes by itself (DESIGN 8.6); null = until resumed. */
  resumesAt?: string | null;
  resumedAt: string | null;
  cancelledAt: string | null;
  completedAt: string | null;
  completionReason: CompletionReason | null;
  /** The run in flight (its billing is at the bank), absent otherwise. */
  runSeq?: number;
  runOccurrence?: number;
  runAttempt?: number;
  runBillingRequestId?: string;
  /** The tick's time of the run. */
  runStartedAt?: string;
  runAnswerBy?: string;
  /** The run's retry if it fails, fixed when it started (DESIGN 8.6; null: none left). */
  runRetryAt?: string | null;
  /** The outcome of the run in flight, recorded in the billing's own outcome transaction. */
  outcomeSeq?: number;
  outcomeStatus?: BillItem['status'];
  outcomeAt?: string;
  /** The outcome's reason (billing.response `reason`): a customer refusal is never retried. */
  outcomeReason?: string | null;
  lastRunAt?: string | null;
  lastRunStatus?: string | null;
  /** The period whose pre-debit notice (`billing.upcoming`, DESIGN 8.5) the bank was sent, and the date it announced. */
  noticedOccurrence?: number;
  noticedRunAt?: string;
  /** An amendment waiting for the customer's fresh decision (DESIGN 8.6); absent otherwise. */
  pendingAmendment?: PendingAmendment;
  /** The sandbox test clock the schedule was created on (DESIGN 8.7); absent otherwise. */
  testClock?: string;
  version: number;
  gsi2pk: string;
  gsi2sk: string;
  gsi3pk: string;
  gsi3sk: string;
  duePk?: string;
  dueSk?: string;
  [extra: string]: unknown;
}

/** What the read side relies on in a stored schedule (parsed on every read). */
const SCHEDULE_SHAPE: Shape = {
  type: ['schedule'],
  scheduleId: 'string',
  merchantId: 'string',
  bankId: 'string',
  customerId: 'string',
  amount: 'number',
  currency: 'string',
  frequency: 'string',
  interval: 'number',
  status: SCHEDULE_STATUSES,
  startDate: 'string',
  anchor: 'string',
  totalBillings: 'number',
  failedAttempts: 'number',
  version: 'number',
  createdAt: 'string',
  updatedAt: 'string',
};

export const parseSchedule = (item: Record<string, unknown> | undefined) => parseItem<ScheduleItem>('schedule', SCHEDULE_SHAPE, item);

export const scheduleKey = (id: string) => ({ pk: `SCHED#${id}`, sk: 'SCHED' as const });
export const merchantSchedulesPk = (merchantId: string) => `MSCHED#${merchantId}`;
export const bankSubscriptionsPk = (bankId: string) => `BSUB#${bankId}`;

/**
 * The ids of the merchant's schedules tied to test clock `clockId` (DESIGN 9.2: deleting the
 * clock ends them) that have not ended yet: made on it (`testClock`), or, for schedules made
 * before they carried it, still due on its partition of the due index. A filtered read of the
 * merchant's schedule list (sandbox only, once per deleted clock).
 */
export async function clockScheduleIds(merchantId: string, clockId: string, clockDuePk: string): Promise<string[]> {
  const ids: string[] = [];
  await queryPages(
    {
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      FilterExpression: '(testClock = :clock OR duePk = :due) AND NOT (#s IN (:cancelled, :completed))',
      ProjectionExpression: 'scheduleId',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: {
        ':pk': merchantSchedulesPk(merchantId),
        ':clock': clockId,
        ':due': clockDuePk,
        ':cancelled': 'cancelled',
        ':completed': 'completed',
      },
    },
    (page) => {
      for (const it of page) ids.push(it.scheduleId as string);
    },
  );
  return ids;
}
export const newScheduleId = () => newId(SCHEDULE_ID_PREFIX);
export const isScheduleIdShaped = (id: unknown): id is string => typeof id === 'string' && /^sch_[0-9A-Za-z]{8,60}$/.test(id);

export const getSchedule = async (id: string) => parseSchedule(await getItem(scheduleKey(id)));

/** Who acts on a schedule: its merchant, or the bank of its customer (DESIGN 8.5). */
export type ScheduleParty = { merchantId: string } | { bankId: string };

/** The schedule `id` of this party (undefined for unknown, malformed or another party's ids). */
export async function getPartySchedule(party: ScheduleParty, id: string): Promise<ScheduleItem | undefined> {
  if (!isScheduleIdShaped(id)) return undefined;
  const s = await getSchedule(id);
  if (s?.type !== 'schedule') return undefined;
  return ('merchantId' in party ? s.merchantId === party.merchantId : s.bankId === party.bankId) ? s : undefined;
}

/** The schedule `id` of this merchant (undefined for unknown, malformed or another merchant's ids). */
export const getMerchantSchedule = (merchantId: string, id: string) => getPartySchedule({ merchantId }, id);

export function datesOf(s: Pick<ScheduleItem, 'anchor' | 'frequency' | 'interval' | 'endDate' | 'maxBillings'>): ScheduleDates {
  return {
    anchor: new Date(s.anchor),
    frequency: s.frequency,
    interval: s.interval,
    endDate: s.endDate ? new Date(s.endDate) : null,
    maxBillings: s.maxBillings,
  };
}

// ---------------------------------------------------------------------------------------
// Shapes

const parseMetadata = (s: ScheduleItem): Record<string, unknown> | null =>
  s.metadataJson ? (JSON.parse(s.metadataJson) as Record<string, unknown>) : null;

/** The list element of `GET /v1/recurring` (spec). */
export function scheduleSummary(s: ScheduleItem) {
  return {
    scheduleId: s.scheduleId,
    customerId: s.customerId,
    amount: toMajor(s.amount),
    currency: s.currency,
    frequency: s.frequency,
    status: s.status,
    nextBillingDate: s.nextBillingDate,
    totalBillings: s.totalBillings,
    createdAt: s.createdAt,
  };
}

/** The billing terms and counters every view shows, in the order they are shown. */
const terms = (s: ScheduleItem) => ({
  amount: toMajor(s.amount),
  currency: s.currency,
  frequency: s.frequency,
  interval: s.interval,
  status: s.status,
  startDate: s.startDate,
  endDate: s.endDate,
  nextBillingDate: s.nextBillingDate,
  totalBillings: s.totalBillings,
  maxBillings: s.maxBillings,
  failedAttempts: s.failedAttempts,
  description: s.description,
  createdAt: s.createdAt,
});

/** `GET /v1/recurring/{id}`: every field of the spec's Recurring schedule, and the lifecycle stamps. */
export function scheduleRecord(s: ScheduleItem) {
  return {
    scheduleId: s.scheduleId,
    customerId: s.customerId,
    agreementPhrase: s.agreementPhrase,
    ...terms(s),
    entityId: s.merchantId,
    metadata: parseMetadata(s),
    updatedAt: s.updatedAt,
    pausedAt: s.pausedAt,
    pauseReason: s.pauseReason,
    resumedAt: s.resumedAt,
    cancelledAt: s.cancelledAt,
    completedAt: s.completedAt,
    ...(s.pendingAmendment ? { pendingAmendment: amendmentView(s.pendingAmendment) } : {}),
  };
}

/** The bank's view (`GET /v1/bank/customer/subscriptions`): no agreement phrase, no merchant metadata. */
export function subscriptionView(s: ScheduleItem, merchantName: string | null) {
  return {
    scheduleId: s.scheduleId,
    customerId: s.customerId,
    entityId: s.merchantId,
    merchantName,
    ...terms(s),
    pausedAt: s.pausedAt,
    cancelledAt: s.cancelledAt,
    completedAt: s.completedAt,
  };
}

/** `data` of every `schedule.*` event. */
export function scheduleEventData(s: ScheduleItem, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    scheduleId: s.scheduleId,
    entityId: s.merchantId,
    customerId: s.customerId,
    amount: toMajor(s.amount),
    currency: s.currency,
    frequency: s.frequency,
    interval: s.interval,
    status: s.status,
    nextBillingDate: s.nextBillingDate,
    totalBillings: s.totalBillings,
    maxBillings: s.maxBillings,
    failedAttempts: s.failedAttempts,
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------
// Lists (newest first; `total` counts every match)

export interface ScheduleFilter {
  customerId?: string;
  status?: ScheduleStatus;
  merchantId?: string;
}

/** A merchant's schedules (gsi2) or a bank's customers' (gsi3) matching the filter, newest first, as a list range. */
export function scheduleRange(owner: { merchantId: string } | { bankId: string }, f: ScheduleFilter): ListRange {
  const byMerchant = 'merchantId' in owner;
  const filter = equalsFilter({ customerId: f.customerId, status: f.status, merchantId: f.merchantId });
  return indexRange(
    byMerchant ? 'gsi2' : 'gsi3',
    byMerchant ? merchantSchedulesPk(owner.merchantId) : bankSubscriptionsPk(owner.bankId),
    filter,
  );
}

/** The schedules that may still bill: active, paused (until resumed) or with a run at the bank. */
export const STANDING_SCHEDULE_STATUSES: readonly ScheduleStatus[] = ['active', 'paused', 'processing'];

/**
 * A bank's customer's schedules that may still bill (DESIGN 10.5's consents), newest first, as
 * the consents view shows them (amount in major units): one filtered read of the bank's
 * subscriptions, at most `max`.
 */
export async function customerSchedules(bankId: string, customerId: string, max = 1_000) {
  const range = scheduleRange({ bankId }, { customerId });
  const items = await readRange<Item>(range, max);
  return items
    .map((it) => parseSchedule(it)!)
    .filter((s) => STANDING_SCHEDULE_STATUSES.includes(s.status))
    .map((s) => ({
      scheduleId: s.scheduleId,
      decisionId: s.decisionId,
      status: s.status,
      amount: toMajor(s.amount),
      nextRunAt: s.nextBillingDate,
    }));
}

/** The stored item of a schedule id (a list cursor; the pager checks it lies in the caller's list). */
export const scheduleItemNamed = (id: string) => (isScheduleIdShaped(id) ? getItem(scheduleKey(id)) : Promise.resolve(undefined));
