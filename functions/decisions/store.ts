/**
 * Customer decisions, the writes (DESIGN 6.9 "Decision identity", 8.5): a new decision, a
 * change in place with its history version, the end of a decision's validity, and saving a
 * decision with its event (intent-response, the bank's PUT). The item, keys, reads and API
 * shapes are views.ts.
 *
 * Every change increments `version` and is conditioned on the version read, so concurrent
 * changes never lose one another and a billing that conditions on the version it checked
 * is cancelled by any change in between. Every change also writes the version to the pair's
 * counter item (`decVersion`, domain/limits.ts), in the same transaction: a billing conditions
 * on it there and needs no write to, nor ConditionCheck of, the decision. `lastUsed` lives on
 * that counter item too (the billing sets it); the decision item's own `lastUsed` is from
 * before release 3 (views.ts shows the later of the two).
 */
import { decisionId, type DecisionValue, type SpendingLimits } from '../domain/decisions';
import { issueAgreementPhrase } from '../domain/agreement-phrase';
import { countsConsent, lagosYear, yearAttribute, type ConsentTerms } from '../domain/consent';
import {
  DECISION_VERSION,
  dayTotal,
  limitCounterKeys,
  limitCounterPk,
  monthTotal,
  monthTotalsOf,
  PAIR_COUNTING,
  pairCounterKey,
  TOTAL_ATTRIBUTE,
  usedFromCounters,
  weekTotal,
} from '../domain/limits';
import { periodKeys } from '../domain/lagos-time';
import { commit, type EventSpec } from '../events/outbox';
import { answerIntent, type IntentItem } from './intents';
import { participantKey } from '../identity/participant-store';
import {
  batchGetByKey,
  cancellationCodes,
  getItem,
  isTransactionCancelled,
  itemKeyOf,
  nowIso,
  queryAll,
  table,
  type Item,
  type TransactItem,
} from '../platform/table';
import { backoff } from '../platform/retry';
import { dueAttributes } from '../platform/due';
import {
  agreementPhrasePk,
  bankDecisionsPk,
  decisionHistoryPk,
  decisionKey,
  getDecision,
  intentResponseEvent,
  merchantDecisionsPk,
  termsOf,
  versionSk,
  type DecisionItem,
  type DecisionVersionItem,
  type VersionReason,
} from './views';

/** The decision's changeable state. */
export interface DecisionChange {
  decision: DecisionValue;
  spendingLimits: SpendingLimits;
  blockMerchant: boolean;
  lookupPhrase: string;
  terms: ConsentTerms;
}

/** Due kind: a decision's validTo has passed; its history records it (DESIGN 8.5). */
export const VALIDITY_KIND = 'decision.validity';

/** The due entry of a decision whose validTo is still ahead at `now` (none otherwise). */
const validityDue = (id: string, validTo: string | null, now: string) =>
  validTo && Date.parse(validTo) > Date.parse(now) ? dueAttributes(VALIDITY_KIND, id, validTo) : undefined;

/** The decision's version on the pair's counter item (domain/limits.ts `decVersion`), in the change's transaction. */
export function counterVersionItem(decisionId: string, version: number): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: pairCounterKey(decisionId),
      UpdateExpression: 'SET #dv = :v',
      ExpressionAttributeNames: { '#dv': DECISION_VERSION },
      ExpressionAttributeValues: { ':v': version },
    },
  };
}

/**
 * The pair's counter item of a NEW decision: its version, and counting from now on. A pair
 * billed before release 3 (a one-time pay before the decision) starts from its month/week
 * items' totals of the current periods; a pair already counting keeps its own.
 */
async function newPairCounterItem(decisionId: string, now: string): Promise<TransactItem> {
  const keys = periodKeys(new Date(now));
  const legacyKeys = limitCounterKeys(decisionId, keys);
  const found = await batchGetByKey<Item>([legacyKeys.month, legacyKeys.week]);
  const used = usedFromCounters(keys, found.get(itemKeyOf(legacyKeys.month)), found.get(itemKeyOf(legacyKeys.week)));
  return {
    Update: {
      TableName: table(),
      Key: pairCounterKey(decisionId),
      UpdateExpression:
        'SET #dv = :v, #lim = if_not_exists(#lim, :one), #m = if_not_exists(#m, :m), #w = if_not_exists(#w, :w), #d = if_not_exists(#d, :d)',
      ExpressionAttributeNames: {
        '#dv': DECISION_VERSION,
        '#lim': PAIR_COUNTING,
        '#m': monthTotal(keys.month),
        '#w': weekTotal(keys.week),
        '#d': dayTotal(keys.day),
      },
      ExpressionAttributeValues: { ':v': 1, ':one': 1, ':m': used.month, ':w': used.week, ':d': used.day },
    },
  };
}

/** A new decision item (the caller issues its agreementPhrase). */
export function newDecisionItem(
  p: { customerId: string; bankId: string; merchantId: string; agreementPhrase: string; clientRef?: string },
  change: DecisionChange,
  now: string,
): DecisionItem {
  const id = decisionId(p.merchantId, p.customerId);
  return {
    ...decisionKey(id),
    id,
    customerId: p.customerId,
    bankId: p.bankId,
    // The bank's own id of the customer (never changes): `billing.request` needs no customer read.
    ...(p.clientRef !== undefined ? { clientRef: p.clientRef } : {}),
    merchantId: p.merchantId,
    lookupPhrase: change.lookupPhrase,
    decision: change.decision,
    spendingLimits: { ...change.spendingLimits },
    blockMerchant: change.blockMerchant,
    ...change.terms,
    agreementPhrase: p.agreementPhrase,
    createdAt: now,
    lastUpdated: now,
    lastUsed: null,
    version: 1,
    gsi2pk: merchantDecisionsPk(p.merchantId),
    gsi2sk: `${now}#${id}`,
    gsi3pk: bankDecisionsPk(p.bankId),
    gsi3sk: `${now}#${id}`,
    gsi1pk: agreementPhrasePk(p.agreementPhrase),
    gsi1sk: 'DEC',
    ...validityDue(id, change.terms.validTo, now),
  };
}

/** Create: only if the pair has no decision yet. */
export function putNewDecision(item: DecisionItem): TransactItem {
  return { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * Change in place (same id, same agreementPhrase), conditioned on the version read. Only the
 * named attributes are written, so attributes other features keep on the item (`lastUsed`)
 * survive.
 */
export function updateDecision(
  current: DecisionItem,
  change: DecisionChange,
  now: string,
  /** The year's usage to start counting from (`yearUsageToStart`), when this change starts the count. */
  startYear?: { attribute: string; used: number },
): { item: TransactItem; next: DecisionItem } {
  const { terms, ...rest } = change;
  const due = validityDue(current.id, terms.validTo, now);
  const next: DecisionItem = {
    ...current,
    ...rest,
    ...terms,
    spendingLimits: { ...change.spendingLimits },
    lastUpdated: now,
    version: current.version + 1,
  };
  delete next.duePk;
  delete next.dueSk;
  if (due) Object.assign(next, due);
  if (startYear) Object.assign(next, { [startYear.attribute]: startYear.used });
  return {
    next,
    item: {
      Update: {
        TableName: table(),
        Key: decisionKey(current.id),
        UpdateExpression:
          'SET #decision = :decision, spendingLimits = :limits, blockMerchant = :block, lookupPhrase = :phrase, lastUpdated = :now, version = :next, ' +
          'validFrom = :validFrom, validTo = :validTo, maxPayments = :maxPayments, channel = :channel, customerAcceptedAt = :accepted' +
          (startYear ? ', #year = :yearUsed' : '') +
          (due ? ', duePk = :duePk, dueSk = :dueSk' : ' REMOVE duePk, dueSk'),
        ConditionExpression: 'attribute_exists(pk) AND version = :version',
        ExpressionAttributeNames: { '#decision': 'decision', ...(startYear ? { '#year': startYear.attribute } : {}) },
        ExpressionAttributeValues: {
          ':decision': change.decision,
          ':limits': { ...change.spendingLimits },
          ':block': change.blockMerchant,
          ':phrase': change.lookupPhrase,
          ':validFrom': terms.validFrom,
          ':validTo': terms.validTo,
          ':maxPayments': terms.maxPayments,
          ':channel': terms.channel,
          ':accepted': terms.customerAcceptedAt,
          ...(due ? { ':duePk': due.duePk, ':dueSk': due.dueSk } : {}),
          ...(startYear ? { ':yearUsed': startYear.used } : {}),
          ':now': now,
          ':next': current.version + 1,
          ':version': current.version,
        },
      },
    },
  };
}

/** The history item of `d` as it is after a change (Put, never over an existing version). */
export function versionItem(d: DecisionItem, actor: 'bank' | 'system', reason: VersionReason, at: string): TransactItem {
  const item: DecisionVersionItem = {
    pk: decisionHistoryPk(d.id),
    sk: versionSk(d.version),
    type: 'decision_version',
    decisionId: d.id,
    version: d.version,
    decision: d.decision,
    spendingLimits: { ...d.spendingLimits },
    blockMerchant: d.blockMerchant,
    ...termsOf(d),
    actor: { type: actor },
    changedAt: at,
    reason,
  };
  return { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * The end of a decision's validity (due kind `decision.validity`): a new version by the
 * system (`validity_expired`), in one transaction with the decision's version bump and the
 * due entry's removal, conditioned on the version read and the tick's lease (a concurrent
 * change wins; a repeated job finds the entry gone). Returns false when it lost.
 */
export async function recordValidityExpired(d: DecisionItem, leasedSk: string, at: string): Promise<boolean> {
  const next: DecisionItem = { ...d, lastUpdated: at, version: d.version + 1 };
  try {
    await commit(
      [
        {
          Update: {
            TableName: table(),
            Key: decisionKey(d.id),
            UpdateExpression: 'SET lastUpdated = :at, version = :next REMOVE duePk, dueSk',
            ConditionExpression: 'version = :v AND dueSk = :leased',
            ExpressionAttributeValues: { ':at': at, ':next': next.version, ':v': d.version, ':leased': leasedSk },
          },
        },
        versionItem(next, 'system', 'validity_expired', at),
        counterVersionItem(d.id, next.version),
      ],
      [],
    );
    return true;
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// Saving a decision with its event (intent-response and the bank's PUT)

export type SaveDecisionResult =
  | { ok: true; decision: DecisionItem }
  | { ok: false; reason: 'not_found' | 'intent_answered' | 'untrusted' };

/**
 * What else an intent's answer commits with the decision: the recurring feature settles a
 * schedule's amendment (recurring/amendments.ts `amendmentAnswerItems`, DESIGN 8.6). Passed by
 * whoever answers intents (the bank's intent-response, the sandbox's simulated bank), so this
 * module does not import the features above it.
 */
export type IntentAnswerHook = (
  intent: IntentItem,
  next: DecisionItem,
  at: string,
) => Promise<{ items: TransactItem[]; events: EventSpec[] }>;

export type SaveDecisionInput = SaveDecisionBase &
  (
    | {
        /** The intent being answered, read afresh on every attempt (it may throw the caller's refusal). */
        intent: () => Promise<IntentItem>;
        onAnswer: IntentAnswerHook;
      }
    | { intent?: undefined; onAnswer?: undefined }
  );

interface SaveDecisionBase {
  decisionId: string;
  /** Who a NEW decision is for (with the bank's clientRef of the customer); absent = the decision must exist already (the bank's PUT). */
  create?: { customerId: string; bankId: string; merchantId: string; clientRef?: string };
  /** Whether the caller may change an existing decision (absent = yes). */
  owns?: (d: DecisionItem) => boolean;
  /** The new state, from the current decision (undefined when none yet) and the intent. */
  change: (current: DecisionItem | undefined, intent: IntentItem | undefined) => DecisionChange;
  /**
   * Set when the new state needs a trusted merchant (approve_recurring): read afresh on every
   * attempt, and made a condition of the transaction, so a concurrent un-trust cannot slip in.
   */
  trustedMerchant?: (merchantId: string) => Promise<boolean>;
  /** Why the version is written (the history's `reason`). */
  reason: VersionReason;
}

const MAX_SAVE_ATTEMPTS = 10;

/**
 * Writes the decision (created once, or changed in place under its version), answers the
 * intent when there is one (only if still open), checks the merchant's trust when asked,
 * and commits `billing.intent.response` to the merchant (and its provider) in the SAME
 * transaction. A race lost on the decision's version (or a transaction conflict) is retried
 * on a fresh read; a lost race on the intent is `intent_answered`.
 */
/**
 * A yearly limit set on a decision whose billings were not counting (no yearly limit and no
 * maxPayments: `countsConsent`) starts from the Lagos year's spending so far, summed
 * from the month counters every billing keeps, so a yearly limit set in November still counts
 * January's billings, as a monthly limit set mid-month counts the month's. (maxPayments set
 * later counts the payments made under it: the counters keep amounts, not counts.)
 */
async function yearUsageToStart(
  current: DecisionItem,
  change: DecisionChange,
  now: Date,
): Promise<{ attribute: string; used: number } | undefined> {
  if (countsConsent(current) || change.spendingLimits.yearly == null) return undefined;
  const year = lagosYear(now);
  const [months, counter] = await Promise.all([
    queryAll<Record<string, unknown>>(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :year)',
        ExpressionAttributeValues: { ':pk': limitCounterPk(current.id), ':year': `M#${year}-` },
        ConsistentRead: true,
      },
      12,
    ),
    getItem(pairCounterKey(current.id)),
  ]);
  // Each month from the pair's counter item when it has it (it copied the month item it took over), else from the month item.
  const byMonth = new Map<string, number>();
  for (const m of months) {
    if (typeof m[TOTAL_ATTRIBUTE] === 'number') byMonth.set(String(m.sk).slice(2), m[TOTAL_ATTRIBUTE] as number);
  }
  for (const [month, total] of monthTotalsOf(counter, year)) byMonth.set(month, total);
  const used = [...byMonth.values()].reduce((sum, v) => sum + v, 0);
  return { attribute: yearAttribute(year), used };
}

export async function saveDecision(p: SaveDecisionInput): Promise<SaveDecisionResult> {
  for (let attempt = 1; ; attempt++) {
    const intent = p.intent ? await p.intent() : undefined;
    const current = await getDecision(p.decisionId);
    if (!current && !p.create) return { ok: false, reason: 'not_found' };
    if (current && p.owns && !p.owns(current)) return { ok: false, reason: 'not_found' };
    const merchantId = current?.merchantId ?? p.create!.merchantId;
    if (p.trustedMerchant && !(await p.trustedMerchant(merchantId))) return { ok: false, reason: 'untrusted' };

    const change = p.change(current, intent);
    const now = nowIso();
    let next: DecisionItem;
    let write: TransactItem;
    let counter: TransactItem;
    if (current) {
      ({ next, item: write } = updateDecision(current, change, now, await yearUsageToStart(current, change, new Date(now))));
      counter = counterVersionItem(current.id, next.version);
    } else {
      const c = p.create!;
      next = newDecisionItem({ ...c, agreementPhrase: await issueAgreementPhrase(p.decisionId, c.merchantId) }, change, now);
      if (next.id !== p.decisionId) throw new Error('decision id does not match its pair');
      write = putNewDecision(next);
      counter = await newPairCounterItem(next.id, now);
    }

    const items: TransactItem[] = [];
    const intentAt = intent ? items.push(answerIntent(intent, change.decision, now)) - 1 : -1;
    items.push(write, versionItem(next, 'bank', p.reason, now), counter);
    // An intent that asks for a schedule's amendment settles it in the same transaction (DESIGN 8.6).
    const amendment = intent && p.onAnswer ? await p.onAnswer(intent, next, now) : { items: [], events: [] };
    items.push(...amendment.items);
    const trustAt = p.trustedMerchant
      ? items.push({
          ConditionCheck: {
            TableName: table(),
            Key: participantKey(merchantId),
            ConditionExpression: 'trusted = :t',
            ExpressionAttributeValues: { ':t': true },
          },
        }) - 1
      : -1;

    try {
      await commit(items, [
        { type: 'billing.intent.response', to: merchantId, data: intentResponseEvent(next, intent?.intentId ?? null) },
        ...amendment.events,
      ]);
      return { ok: true, decision: next };
    } catch (e) {
      if (!isTransactionCancelled(e)) throw e;
      const codes = cancellationCodes(e);
      if (intentAt >= 0 && codes[intentAt] === 'ConditionalCheckFailed') return { ok: false, reason: 'intent_answered' };
      if (trustAt >= 0 && codes[trustAt] === 'ConditionalCheckFailed') return { ok: false, reason: 'untrusted' };
      // The decision changed since we read it (or a concurrent transaction touched our items).
      if (attempt >= MAX_SAVE_ATTEMPTS) throw e;
      await backoff(attempt, { base: 20, cap: 200 });
    }
  }
}
