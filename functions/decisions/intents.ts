/**
 * Billing intents (spec rule 4, DESIGN 6.5 and 6.9 "Intent"): one item per intent.
 *
 *   INTENT#<intentId> / INTENT
 *     gsi1 INTENTS#<merchantId>#<customerId>#<sha256(lookupPhrase) 32 hex> / <createdAt>#<intentId>
 *
 * The gsi1 partition holds exactly the intents one (customer, merchant, lookupPhrase) triple
 * can answer, so "the newest open intent for (customerId, entityId, lookupPhrase)" is one
 * query read newest first, without filtering other phrases' intents. An intent is answered
 * once: the answer is a conditional update (`status = open`) in the same transaction as the
 * decision and its event, so two concurrent answers cannot both succeed.
 */
import type { DecisionValue } from '../domain/decisions';
import { newId, sha256Hex } from '../domain/ids';
import { toMajor } from '../domain/money';
import type { Frequency } from '../domain/schedule-dates';
import { getItem, queryAll, table, type TransactItem } from '../platform/table';

export type IntentStatus = 'open' | 'answered';

export interface IntentItem {
  pk: string;
  sk: 'INTENT';
  intentId: string;
  customerId: string;
  bankId: string;
  merchantId: string;
  /** The phrase the merchant sent. */
  lookupPhrase: string;
  currency: string;
  description: string;
  status: IntentStatus;
  createdAt: string;
  answeredAt?: string;
  decision?: DecisionValue;
  /** A recurring schedule's amendment this intent asks the customer to approve (DESIGN 8.6). */
  amendment?: IntentAmendment;
  gsi1pk: string;
  gsi1sk: string;
  [extra: string]: unknown;
}

/** The terms of a schedule an amendment changes (major units in events, minor on items). */
export interface AmendmentTerms {
  amount: number;
  frequency: Frequency;
  description: string | null;
}

export interface IntentAmendment {
  scheduleId: string;
  amendmentId: string;
  from: AmendmentTerms;
  to: AmendmentTerms;
}

export const intentKey = (intentId: string) => ({ pk: `INTENT#${intentId}`, sk: 'INTENT' as const });
export const intentsPk = (merchantId: string, customerId: string, lookupPhrase: string) =>
  `INTENTS#${merchantId}#${customerId}#${sha256Hex(lookupPhrase).slice(0, 32)}`;

export const isIntentIdShaped = (id: unknown): id is string => typeof id === 'string' && /^int_[0-9A-Za-z]{1,40}$/.test(id);

export function newIntentItem(
  p: {
    customerId: string;
    bankId: string;
    merchantId: string;
    lookupPhrase: string;
    currency: string;
    description: string;
    amendment?: IntentAmendment;
  },
  now: string,
): IntentItem {
  const intentId = newId('int');
  return {
    ...intentKey(intentId),
    intentId,
    ...p,
    status: 'open',
    createdAt: now,
    gsi1pk: intentsPk(p.merchantId, p.customerId, p.lookupPhrase),
    gsi1sk: `${now}#${intentId}`,
  };
}

/**
 * `billing.intent` data (to the customer's bank) of a new intent; an amendment's intent also
 * carries `amendment: {scheduleId, amendmentId, from, to}` (amounts in major units).
 */
export function intentEventData(
  intent: IntentItem,
  clientRef: string,
  merchantName: string,
  allowedDecisions: readonly DecisionValue[],
): Record<string, unknown> {
  const major = (t: AmendmentTerms) => ({ ...t, amount: toMajor(t.amount) });
  return {
    intentId: intent.intentId,
    customerId: intent.customerId,
    clientRef,
    lookupPhrase: intent.lookupPhrase,
    entityId: intent.merchantId,
    merchantName,
    currency: intent.currency,
    description: intent.description,
    allowedDecisions,
    createdAt: intent.createdAt,
    ...(intent.amendment ? { amendment: { ...intent.amendment, from: major(intent.amendment.from), to: major(intent.amendment.to) } } : {}),
  };
}

export function putNewIntent(item: IntentItem): TransactItem {
  return { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** Mark the intent answered, only if it is still open (the loser of a race is cancelled here). */
export function answerIntent(intent: IntentItem, decision: DecisionValue, now: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: intentKey(intent.intentId),
      UpdateExpression: 'SET #status = :answered, answeredAt = :now, #decision = :decision',
      ConditionExpression: 'attribute_exists(pk) AND #status = :open',
      ExpressionAttributeNames: { '#status': 'status', '#decision': 'decision' },
      ExpressionAttributeValues: { ':answered': 'answered', ':open': 'open', ':now': now, ':decision': decision },
    },
  };
}

export type IntentLookup = { found: IntentItem } | { refused: 'not_found' | 'answered' };

/**
 * The intent an intent-response answers (DESIGN 6.9): the given `intentId` when it belongs to
 * the (customer, merchant, lookupPhrase) triple, else the newest OPEN intent of the triple.
 * `answered` when the named intent (or, without an id, the newest intent of the triple,
 * none being open) was answered already; `not_found` when there is none.
 */
export async function findIntentToAnswer(q: {
  customerId: string;
  merchantId: string;
  lookupPhrase: string;
  intentId?: string;
}): Promise<IntentLookup> {
  if (q.intentId !== undefined) {
    const it = isIntentIdShaped(q.intentId) ? await getItem<IntentItem>(intentKey(q.intentId)) : undefined;
    if (!it || it.customerId !== q.customerId || it.merchantId !== q.merchantId || it.lookupPhrase !== q.lookupPhrase) {
      return { refused: 'not_found' };
    }
    return it.status === 'open' ? { found: it } : { refused: 'answered' };
  }
  const all = await queryAll<IntentItem>({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': intentsPk(q.merchantId, q.customerId, q.lookupPhrase) },
    ScanIndexForward: false,
  });
  // The hash names the partition; the stored fields decide (a hash collision changes nothing).
  const own = all.filter((i) => i.customerId === q.customerId && i.merchantId === q.merchantId && i.lookupPhrase === q.lookupPhrase);
  for (const candidate of own.filter((i) => i.status === 'open')) {
    // The index is eventually consistent on AWS: confirm on the item itself.
    const fresh = await getItem<IntentItem>(intentKey(candidate.intentId));
    if (fresh?.status === 'open') return { found: fresh };
  }
  return own.length > 0 ? { refused: 'answered' } : { refused: 'not_found' };
}
