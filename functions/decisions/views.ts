/**
 * Customer decisions in the single table (DESIGN 6.9 "Decision identity"): ONE item per
 * (customer, merchant), id deterministic from the pair (`decisionId`), so it is found and
 * created exactly once (conditional put) without a pointer item. The item, its keys, reads
 * and API shapes; every write is store.ts.
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
 * back by its release (domain/consent.ts says why they live here). Spending limits are
 * stored in minor units and shown in major units.
 */
import {
  customerAction,
  isDecisionIdShaped,
  LIMIT_PERIODS,
  type CustomerAction,
  type DecisionValue,
  type SpendingLimits,
} from '../domain/decisions';
import { AGREEMENT_PHRASE_PREFIX } from '../domain/agreement-phrase';
import { remainingOf, usageOf, type ConsentTerms, type Remaining } from '../domain/consent';
import { LAST_USED, limitCounterKeys, pairCounterKey, pairCounts, usedFromCounters, usedFromPairCounter } from '../domain/limits';
import { periodKeys } from '../domain/lagos-time';
import { sha256Hex } from '../domain/ids';
import { batchGetByKey, getItem, itemKeyOf, queryAll } from '../platform/table';
import { equalsFilter, indexRange, type ListRange } from '../platform/list-page';

export { decisionId } from '../domain/decisions';

export interface DecisionItem {
  pk: string;
  sk: 'DEC';
  id: string;
  customerId: string;
  bankId: string;
  /** The bank's own id of the customer (decisions made since release 3): billings read no customer. */
  clientRef?: string;
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
  /**
   * Set by billings before release 3 (at most hourly); since then the pair's counter item
   * carries the last billing's time (`lastUsedOf`, `decisionUsage`).
   */
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

/** The consent terms of a stored decision (absent = not set). */
export const termsOf = (d: Partial<ConsentTerms>): ConsentTerms => ({
  validFrom: d.validFrom ?? null,
  validTo: d.validTo ?? null,
  maxPayments: d.maxPayments ?? null,
  channel: d.channel ?? null,
  customerAcceptedAt: d.customerAcceptedAt ?? null,
});

export const decisionKey = (id: string) => ({ pk: `DEC#${id}`, sk: 'DEC' as const });

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

/** The list shape of the spec's Customer decision (`lastUsed` from `lastUsedOf` / `decisionUsage`). */
export function decisionSummary(d: DecisionItem, lastUsed: string | null = d.lastUsed ?? null) {
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
    lastUsed,
  };
}

/** The later of two ISO times (either may be missing). */
const later = (a: string | null | undefined, b: unknown): string | null => {
  const x = a ?? null;
  const y = typeof b === 'string' ? b : null;
  if (x === null) return y;
  if (y === null) return x;
  return Date.parse(y) > Date.parse(x) ? y : x;
};

/** The decisions' `lastUsed`: the later of the pair's counter item's (since release 3) and the decision's own. One BatchGetItem. */
export async function lastUsedOf(decisions: DecisionItem[]): Promise<Map<string, string | null>> {
  const found = decisions.length ? await batchGetByKey<Record<string, unknown>>(decisions.map((d) => pairCounterKey(d.id))) : new Map();
  return new Map(decisions.map((d) => [d.id, later(d.lastUsed, found.get(itemKeyOf(pairCounterKey(d.id)))?.[LAST_USED])]));
}

/** Minor units -> major, keeping null (no limit). */
const major = (v: number | null) => (v === null ? null : v / 100);

/**
 * `remaining` (DESIGN 8.5) and `lastUsed` of each decision at `now`, from the same counters
 * the billings check: the pair's counter item (or, for a pair not billed since release 3, its
 * month and week items) in one BatchGetItem for all of them, and the decision's own year and
 * payment counters.
 */
export async function decisionUsage(
  decisions: DecisionItem[],
  now: Date,
): Promise<Map<string, { remaining: Remaining; lastUsed: string | null }>> {
  const keys = periodKeys(now);
  const counterKeys = decisions.map((d) => ({ pair: pairCounterKey(d.id), ...limitCounterKeys(d.id, keys) }));
  const found = decisions.length
    ? await batchGetByKey<Record<string, unknown>>(counterKeys.flatMap((k) => [k.pair, k.month, k.week]))
    : new Map();
  const out = new Map<string, { remaining: Remaining; lastUsed: string | null }>();
  decisions.forEach((d, i) => {
    const k = counterKeys[i]!;
    const pair = found.get(itemKeyOf(k.pair));
    const used = pairCounts(pair)
      ? usedFromPairCounter(keys, pair)
      : usedFromCounters(keys, found.get(itemKeyOf(k.month)), found.get(itemKeyOf(k.week)));
    const r = remainingOf(d.spendingLimits, d.maxPayments ?? null, used, usageOf(d, now));
    const remaining: Remaining = {
      ...r,
      single: major(r.single),
      daily: major(r.daily),
      weekly: major(r.weekly),
      monthly: major(r.monthly),
      yearly: major(r.yearly),
    };
    out.set(d.id, { remaining, lastUsed: later(d.lastUsed, pair?.[LAST_USED]) });
  });
  return out;
}

// ---------------------------------------------------------------------------------------
// History (DESIGN 8.5): one item per version, nothing overwritten

export type VersionReason = 'intent_response' | 'bank_update' | 'validity_expired';

export const decisionHistoryPk = (id: string) => `DECV#${id}`;

export const versionSk = (version: number) => `V#${String(version).padStart(10, '0')}`;

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
export function decisionRecord(d: DecisionItem, lastUsedAt: string | null = d.lastUsed ?? null) {
  const { lastUsed, ...rest } = decisionSummary(d, lastUsedAt);
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

/** The decisions that let a merchant bill (DESIGN 10.5 "standing consents"). */
export const STANDING_DECISIONS: readonly DecisionValue[] = ['approve_once', 'approve_recurring'];

/**
 * Whether a decision is a standing consent at `now`: it approves billing, does not block the
 * merchant, and its validity has not ended (one that starts later counts: it lets the
 * merchant bill later). The same rule as `standingConsentRange`'s filter.
 */
export const isStandingConsent = (d: Pick<DecisionItem, 'decision' | 'blockMerchant' | 'validTo'>, now: Date): boolean =>
  STANDING_DECISIONS.includes(d.decision) && d.blockMerchant !== true && (d.validTo == null || Date.parse(d.validTo) >= now.getTime());

/**
 * A bank's customer's standing consents (DESIGN 10.5), newest first: the bank's decision list
 * (gsi3 `BDEC#<bank>`) filtered to the customer and to `isStandingConsent` at `now`.
 */
export function standingConsentRange(bankId: string, customerId: string, now: Date): ListRange {
  const standing = {
    expression:
      '#fsd IN (:fsd0, :fsd1) AND #fsb <> :fsb AND (attribute_not_exists(#fsv) OR attribute_type(#fsv, :fsnull) OR #fsv >= :fsnow)',
    names: { '#fsd': 'decision', '#fsb': 'blockMerchant', '#fsv': 'validTo' },
    values: {
      ':fsd0': STANDING_DECISIONS[0],
      ':fsd1': STANDING_DECISIONS[1],
      ':fsb': true,
      ':fsnull': 'NULL',
      ':fsnow': now.toISOString(),
    },
  };
  return indexRange('gsi3', bankDecisionsPk(bankId), equalsFilter({ customerId }, [standing]));
}
