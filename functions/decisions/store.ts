/**
 * Customer decisions in the single table (DESIGN 6.9 "Decision identity"): ONE item per
 * (customer, merchant), id deterministic from the pair (`decisionId`), so it is found and
 * created exactly once (conditional put) without a pointer item.
 *
 *   DEC#<id> / DEC
 *     gsi2 MDEC#<merchantId> / <createdAt>#<id>   the merchant's list
 *     gsi3 BDEC#<bankId>     / <createdAt>#<id>   the bank's list
 *   DECV#<id> / V#<version, 10 digits>             the decision's history (DESIGN 8.5): one
 *                                                  item per version, written with the change
 *
 * Consent terms (validFrom, validTo, maxPayments, channel, customerAcceptedAt; DESIGN 8.5) are
 * attributes of the decision; the year and payment counters (`usedY<yyyy>`, `paymentsUsed`)
 * too, ADDed by each agreement or recurring billing (billing/create-billing.ts) and given
 * back by its release (domain/consent.ts says why they live here).
 *
 * Every change increments `version` and is conditioned on the version read, so concurrent
 * changes never lose one another and a billing that conditions on the version it checked
 * is cancelled by any change in between. `lastUsed` is null until the billing feature SETs
 * it (in the transaction that creates a billing under the decision, without touching
 * `version`). Spending limits are stored in minor units and shown in major units.
 */
import {
  customerAction,
  decisionId,
  isDecisionIdShaped,
  LIMIT_PERIODS,
  type CustomerAction,
  type DecisionValue,
  type SpendingLimits,
} from '../domain/decisions';
import { AGREEMENT_PHRASE_PREFIX, issueAgreementPhrase } from '../domain/agreement-phrase';
import { countsConsent, lagosYear, remainingOf, usageOf, yearAttribute, type ConsentTerms, type Remaining } from '../domain/consent';
import { limitCounterKeys, limitCounterPk, TOTAL_ATTRIBUTE, usedFromCounters } from '../domain/limits';
import { periodKeys } from '../domain/lagos-time';
import { sha256Hex } from '../domain/ids';
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
  type TransactItem,
} from '../platform/table';
import { backoff } from '../platform/retry';
import { dueAttributes } from '../platform/due';
import { equalsFilter, indexRange, type ListRange } from '../platform/list-page';

export { decisionId } from '../domain/decisions';

export interface DecisionItem {
  pk: string;
  sk: 'DEC';
  id: string;
  customerId: string;
  bankId: string;
  merchantId: string;
  /** The lookupPhrase of the latest answered intent. */
  lookupPhrase: string;
  decision: DecisionValue;
  /** Minor units; a missing period has no limit. */
  spendingLimits: SpendingLimits;
  blockMerchant: boolean;
  /** Issued when the decision is created; never changes. */
  agreementPhrase: string;
  createdAt: string;
  lastUpdated: string;
  /** Set by the billing feature when it bills under the decision; null until then. */
  lastUsed: string | null;
  /** Consent terms (DESIGN 8.5); absent on decisions written before them = none. */
  validFrom?: string | null;
  validTo?: string | null;
  maxPayments?: number | null;
  channel?: ConsentTerms['channel'];
  customerAcceptedAt?: string | null;
  version: number;
  gsi2pk: string;
  gsi2sk: string;
  gsi3pk: string;
  gsi3sk: string;
  /** `APHRASE#<sha256(agreementPhrase)>`: finds the decision by its phrase without the key. */
  gsi1pk: string;
  gsi1sk: 'DEC';
  [extra: string]: unknown;
}

/**
 * The terms a decision read shows: only those set (like spendingLimits' periods), so a
 * decision without terms reads exactly as before them; the history shows all five (8.5).
 */
export const setTermsOf = (d: Partial<ConsentTerms>): Partial<ConsentTerms> =>
  Object.fromEntries(Object.entries(termsOf(d)).filter(([, v]) => v !== null)) as Partial<ConsentTerms>;

/** The decision's changeable state. */
export interface DecisionChange {
  decision: DecisionValue;
  spendingLimits: SpendingLimits;
  blockMerchant: boolean;
  lookupPhrase: string;
  terms: ConsentTerms;
}

/** The consent terms of a stored decision (absent = not set). */
export const termsOf = (d: Partial<ConsentTerms>): ConsentTerms => ({
  validFrom: d.validFrom ?? null,
  validTo: d.validTo ?? null,
  maxPayments: d.maxPayments ?? null,
  channel: d.channel ?? null,
  customerAcceptedAt: d.customerAcceptedAt ?? null,
});

export const decisionKey = (id: string) => ({ pk: `DEC#${id}`, sk: 'DEC' as const });

/** Due kind: a decision's validTo has passed; its history records it (DESIGN 8.5). */
export const VALIDITY_KIND = 'decision.validity';

/** The due entry of a decision whose validTo is still ahead at `now` (none otherwise). */
const validityDue = (id: string, validTo: string | null, now: string) =>
  validTo && Date.parse(validTo) > Date.parse(now) ? dueAttributes(VALIDITY_KIND, id, validTo) : undefined;
export const merchantDecisionsPk = (merchantId: string) => `MDEC#${merchantId}`;
export const bankDecisionsPk = (bankId: string) => `BDEC#${bankId}`;

export const agreementPhrasePk = (phrase: string) => `APHRASE#${sha256Hex(phrase)}`;

export const getDecision = (id: string) => getItem<DecisionItem>(decisionKey(id));

/**
 * The decision whose agreementPhrase is exactly `phrase` (any merchant's: the caller checks
 * the owner), by the phrase's SHA-256 on gsi1. Needs no key, so read-only functions (which do
 * not get the application secret) can filter by phrase; a tampered or truncated phrase hashes
 * to nothing. Decrypting (`readAgreementPhrase`) is for the billing paths.
 */
export async function decisionByAgreementPhrase(phrase: string): Promise<DecisionItem | undefined> {
  if (!phrase.startsWith(AGREEMENT_PHRASE_PREFIX) || phrase.length > 512) return undefined;
  const found = await queryAll<DecisionItem>(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': agreementPhrasePk(phrase), ':sk': 'DEC' },
    },
    2,
  );
  return found.find((d) => d.agreementPhrase === phrase);
}

/** The decision of a (merchant, customer) pair, if any. */

/** A new decision item (the caller issues its agreementPhrase). */
export function newDecisionItem(
  p: { customerId: string; bankId: string; merchantId: string; agreementPhrase: string },
  change: DecisionChange,
  now: string,
): DecisionItem {
  const id = decisionId(p.merchantId, p.customerId);
  return {
    ...decisionKey(id),
    id,
    customerId: p.customerId,
    bankId: p.bankId,
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

// ---------------------------------------------------------------------------------------
// Shapes

/** Minor units -> major-unit numbers, only the periods that are set. */
export function limitsToMajor(limits: SpendingLimits | undefined): Partial<Record<(typeof LIMIT_PERIODS)[number], number>> {
  const out: Partial<Record<(typeof LIMIT_PERIODS)[number], number>> = {};
  for (const p of LIMIT_PERIODS) {
    const v = limits?.[p];
    if (typeof v === 'number') out[p] = v / 100;
  }
  return out;
}

/** The list shape of the spec's Customer decision. */
export function decisionSummary(d: DecisionItem) {
  return {
    id: d.id,
    customerId: d.customerId,
    entityId: d.merchantId,
    agreementPhrase: d.agreementPhrase,
    decision: d.decision,
    spendingLimits: limitsToMajor(d.spendingLimits),
    blockMerchant: d.blockMerchant,
    ...setTermsOf(d),
    createdAt: d.createdAt,
    lastUsed: d.lastUsed ?? null,
  };
}

/** Minor units -> major, keeping null (no limit). */
const major = (v: number | null) => (v === null ? null : v / 100);

/**
 * `remaining` of each decision at `now` (DESIGN 8.5), from the same counters the billings
 * check: the pair's month and week counter items (one BatchGetItem for all of them) and the
 * decision's own year and payment counters.
 */
export async function remainingFor(decisions: DecisionItem[], now: Date): Promise<Map<string, Remaining>> {
  const keys = periodKeys(now);
  const counterKeys = decisions.map((d) => limitCounterKeys(d.id, keys));
  const found = decisions.length ? await batchGetByKey<Record<string, unknown>>(counterKeys.flatMap((k) => [k.month, k.week])) : new Map();
  const out = new Map<string, Remaining>();
  decisions.forEach((d, i) => {
    const k = counterKeys[i]!;
    const r = remainingOf(
      d.spendingLimits,
      d.maxPayments ?? null,
      usedFromCounters(keys, found.get(itemKeyOf(k.month)), found.get(itemKeyOf(k.week))),
      usageOf(d, now),
    );
    out.set(d.id, {
      ...r,
      single: major(r.single),
      daily: major(r.daily),
      weekly: major(r.weekly),
      monthly: major(r.monthly),
      yearly: major(r.yearly),
    });
  });
  return out;
}

// ---------------------------------------------------------------------------------------
// History (DESIGN 8.5): one item per version, nothing overwritten

export type VersionReason = 'intent_response' | 'bank_update' | 'validity_expired';

export const decisionHistoryPk = (id: string) => `DECV#${id}`;
const versionSk = (version: number) => `V#${String(version).padStart(10, '0')}`;

export interface DecisionVersionItem extends ConsentTerms {
  [extra: string]: unknown;
  pk: string;
  sk: string;
  type: 'decision_version';
  decisionId: string;
  version: number;
  decision: DecisionValue;
  spendingLimits: SpendingLimits;
  blockMerchant: boolean;
  actor: { type: 'bank' | 'system' };
  changedAt: string;
  reason: VersionReason;
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
 * The history of the decision `id` as its merchant or its customer's bank reads it (DESIGN 8.5),
 * oldest first; undefined for an unknown, malformed or another party's id (404 for both).
 */
export async function historyFor(party: { merchantId: string } | { bankId: string }, id: string) {
  if (!isDecisionIdShaped(id)) return undefined;
  const d = await getDecision(id);
  if (!d || ('merchantId' in party ? d.merchantId !== party.merchantId : d.bankId !== party.bankId)) return undefined;
  return (await decisionHistory(id)).map(versionView);
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
      ],
      [],
    );
    return true;
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

/** Every version of a decision, oldest first. */
export async function decisionHistory(id: string): Promise<DecisionVersionItem[]> {
  return queryAll<DecisionVersionItem>(
    { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': decisionHistoryPk(id) }, ScanIndexForward: true },
    100_000,
  );
}

/** The API shape of a version. */
export function versionView(v: DecisionVersionItem) {
  return {
    version: v.version,
    decision: v.decision,
    spendingLimits: limitsToMajor(v.spendingLimits),
    blockMerchant: v.blockMerchant,
    ...termsOf(v),
    actor: v.actor,
    changedAt: v.changedAt,
    reason: v.reason,
  };
}

/** The full record (single read, and the bank's change responses): adds lookupPhrase and lastUpdated. */
export function decisionRecord(d: DecisionItem) {
  const { lastUsed, ...rest } = decisionSummary(d);
  return { ...rest, lookupPhrase: d.lookupPhrase, lastUpdated: d.lastUpdated, lastUsed };
}

/** `billing.intent.response` data (DESIGN 6.7, 6.9 "Decision outcome"). */
export function intentResponseEvent(
  d: DecisionItem,
  intentId: string | null,
): Record<string, unknown> & { customerAction: CustomerAction } {
  const action = customerAction(d);
  return {
    intentId,
    decisionId: d.id,
    customerId: d.customerId,
    entityId: d.merchantId,
    lookupPhrase: d.lookupPhrase,
    decision: d.decision,
    agreementPhrase: action === 'approved' ? d.agreementPhrase : null,
    spendingLimits: limitsToMajor(d.spendingLimits),
    blockMerchant: d.blockMerchant,
    customerAction: action,
  };
}

// ---------------------------------------------------------------------------------------
// Lists (newest first, by creation: gsi2 `MDEC#<merchant>` / gsi3 `BDEC#<bank>`, sort key
// `<createdAt>#<id>`), paged by http/paging.ts over platform/list-page.ts.

export interface DecisionFilter {
  customerId?: string;
  merchantId?: string;
  decision?: DecisionValue;
  lookupPhrase?: string;
}

const matches = (d: DecisionItem, f: DecisionFilter) =>
  (f.customerId === undefined || d.customerId === f.customerId) &&
  (f.merchantId === undefined || d.merchantId === f.merchantId) &&
  (f.decision === undefined || d.decision === f.decision) &&
  (f.lookupPhrase === undefined || d.lookupPhrase === f.lookupPhrase);

/** The decisions among `candidates` (already read) that match the filter. */
export const matching = (candidates: DecisionItem[], f: DecisionFilter) => candidates.filter((d) => matches(d, f));

/**
 * A merchant's or a bank's decisions matching the filter, as a list range. `phrase` is the
 * merchant's lookupPhrase filter: the decisions of the customer it names, or whose latest
 * answered intent used it.
 */
export function decisionRange(
  owner: { merchantId: string } | { bankId: string },
  f: DecisionFilter,
  phrase?: { customerId?: string; lookupPhrase: string },
): ListRange {
  const byMerchant = 'merchantId' in owner;
  const extra: NonNullable<ListRange['filter']>[] = phrase
    ? [
        phrase.customerId !== undefined
          ? {
              expression: '#fpc = :fpc OR #fpl = :fpl',
              names: { '#fpc': 'customerId', '#fpl': 'lookupPhrase' },
              values: { ':fpc': phrase.customerId, ':fpl': phrase.lookupPhrase },
            }
          : { expression: '#fpl = :fpl', names: { '#fpl': 'lookupPhrase' }, values: { ':fpl': phrase.lookupPhrase } },
      ]
    : [];
  const filter = equalsFilter(
    { customerId: f.customerId, merchantId: f.merchantId, decision: f.decision, lookupPhrase: f.lookupPhrase },
    extra,
  );
  return indexRange(
    byMerchant ? 'gsi2' : 'gsi3',
    byMerchant ? merchantDecisionsPk(owner.merchantId) : bankDecisionsPk(owner.bankId),
    filter,
  );
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
  /** Who a NEW decision is for; absent = the decision must exist already (the bank's PUT). */
  create?: { customerId: string; bankId: string; merchantId: string };
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
 * maxPayments: issue 19, `countsConsent`) starts from the Lagos year's spending so far, summed
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
  const months = await queryAll<Record<string, unknown>>(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :year)',
      ExpressionAttributeValues: { ':pk': limitCounterPk(current.id), ':year': `M#${year}-` },
      ConsistentRead: true,
    },
    12,
  );
  const used = months.reduce((sum, m) => sum + (typeof m[TOTAL_ATTRIBUTE] === 'number' ? (m[TOTAL_ATTRIBUTE] as number) : 0), 0);
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
    if (current) {
      ({ next, item: write } = updateDecision(current, change, now, await yearUsageToStart(current, change, new Date(now))));
    } else {
      const c = p.create!;
      next = newDecisionItem({ ...c, agreementPhrase: await issueAgreementPhrase(p.decisionId, c.merchantId) }, change, now);
      if (next.id !== p.decisionId) throw new Error('decision id does not match its pair');
      write = putNewDecision(next);
    }

    const items: TransactItem[] = [];
    const intentAt = intent ? items.push(answerIntent(intent, change.decision, now)) - 1 : -1;
    items.push(write, versionItem(next, 'bank', p.reason, now));
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
