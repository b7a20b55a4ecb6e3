/**
 * lookupPhrases (spec rules 1-2, DESIGN 6.5): opaque, unguessable tokens bound to one
 * (customer, bank, merchant). A merchant obtains one by device or email lookup and uses it
 * to address the customer (billing intent, one-time pay). Another merchant's phrase is
 * unknown to it.
 *
 *   LPHRASE#<phrase> / LPHRASE               → {customerId, bankId, merchantId}
 *   LPFOR#<merchantId>#<customerId> / LPFOR  → {phrase}: the same (customer, merchant) pair
 *                                              always gets the same phrase (idempotent, no
 *                                              item growth on repeated lookups)
 *
 * Both are written in one transaction with `attribute_not_exists` conditions: two
 * concurrent first lookups for the same pair end with one phrase, which both return.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { randomToken } from '../domain/ids';
import { db } from '../platform/clients';
import { getCustomer, type CustomerRecord } from './store';
import { cancellationCodes, getItem, isTransactionCancelled, nowIso, table, transact, type Item } from '../platform/table';
import { backoff, conflictBackoff, mapLimit } from '../platform/retry';

/** `lp_` + 32 base62 characters (~190 bits from a CSPRNG). */
export const LOOKUP_PHRASE_PATTERN = /^lp_[0-9A-Za-z]{32}$/;
export const isLookupPhraseShaped = (v: unknown): v is string => typeof v === 'string' && LOOKUP_PHRASE_PATTERN.test(v);
export const newLookupPhrase = () => `lp_${randomToken(32)}`;

export const lookupPhraseKey = (phrase: string) => ({ pk: `LPHRASE#${phrase}`, sk: 'LPHRASE' });
export const lookupPhraseForKey = (merchantId: string, customerId: string) => ({ pk: `LPFOR#${merchantId}#${customerId}`, sk: 'LPFOR' });

export interface LookupPhraseItem {
  pk: string;
  sk: 'LPHRASE';
  phrase: string;
  customerId: string;
  bankId: string;
  merchantId: string;
  createdAt: string;
}

type CustomerRef = Pick<CustomerRecord, 'id' | 'bankId'>;

/** The merchant's phrase for each customer (issued on first use), keyed by customer id. */
export async function issueLookupPhrases(merchantId: string, customers: readonly CustomerRef[]): Promise<Map<string, string>> {
  const phrases = new Map<string, string>();
  const unique = [...new Map(customers.map((c) => [c.id, c])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((c) => lookupPhraseForKey(merchantId, c.id));
    for (let round = 0; keys && keys.length > 0; round++) {
      if (round > 0) await backoff(round + 1, { base: 25, cap: 500, jitter: 0 });
      if (round > 8) throw new Error('BatchGet did not finish');
      const out = await db().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: keys, ConsistentRead: true } } }));
      for (const it of out.Responses?.[table()] ?? []) phrases.set(it.customerId as string, it.phrase as string);
      keys = out.UnprocessedKeys?.[table()]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  const missing = unique.filter((c) => !phrases.has(c.id));
  const issued = await mapLimit(missing, 8, (c) => issueOne(merchantId, c));
  missing.forEach((c, i) => {
    phrases.set(c.id, issued[i]!);
  });
  return phrases;
}

/** The merchant's phrase for one customer (issued on first use). */
export async function issueLookupPhrase(merchantId: string, customer: CustomerRef): Promise<string> {
  return (await issueLookupPhrases(merchantId, [customer])).get(customer.id)!;
}

async function issueOne(merchantId: string, customer: CustomerRef): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const phrase = newLookupPhrase();
    const createdAt = nowIso();
    const item: LookupPhraseItem = {
      ...lookupPhraseKey(phrase),
      sk: 'LPHRASE',
      phrase,
      customerId: customer.id,
      bankId: customer.bankId,
      merchantId,
      createdAt,
    };
    try {
      await transact([
        {
          Put: {
            TableName: table(),
            Item: { ...lookupPhraseForKey(merchantId, customer.id), phrase, customerId: customer.id, merchantId, createdAt },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      ]);
      return phrase;
    } catch (e) {
      if (!isTransactionCancelled(e) || attempt >= 5) throw e;
      const codes = cancellationCodes(e);
      if (codes[0] === 'ConditionalCheckFailed' || codes[0] === 'TransactionConflict') {
        // A concurrent lookup issued the pair's phrase first: use it.
        const existing = await getItem<{ phrase: string } & Item>(lookupPhraseForKey(merchantId, customer.id));
        if (existing) return existing.phrase;
      }
      await conflictBackoff(attempt, { base: 10, cap: 80 });
    }
  }
}

export interface ResolvedLookupPhrase {
  customer: CustomerRecord;
  bankId: string;
}

/**
 * The customer a phrase names, for THIS merchant only: a phrase issued to another
 * merchant, an unknown, malformed or non-string phrase all resolve to undefined (callers
 * answer `Customer not found`).
 */
export async function resolveLookupPhrase(phrase: unknown, merchantId: string): Promise<ResolvedLookupPhrase | undefined> {
  if (!isLookupPhraseShaped(phrase)) return undefined;
  const item = await getItem<LookupPhraseItem & Item>(lookupPhraseKey(phrase));
  if (!item || item.merchantId !== merchantId) return undefined;
  const customer = await getCustomer(item.customerId);
  if (!customer || customer.bankId !== item.bankId) return undefined;
  return { customer, bankId: item.bankId };
}
