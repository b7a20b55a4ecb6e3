/**
 * Merchant-specific store code: provider-created merchants (batch), a provider's merchant
 * list (gsi2 `PROV#<providerId>#MERCHANTS`, sorted by `<createdAt>#<id>`), profile updates
 * with the email uniqueness guard moved in the same transaction, and the trust update item.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { randomToken } from '../domain/ids';
import { canReceiveApproveRecurring, trustOf, type TrustLevel, type TrustState } from '../domain/trust';
import { db } from '../platform/clients';
import {
  buildParticipant,
  getParticipant,
  merchantEmailGuard,
  merchantEmailKey,
  newApiKey,
  newParticipantId,
  participantKey,
  putParticipantItem,
  type BankAccount,
  type Participant,
} from '../identity/participant-store';
import {
  batchPut,
  cancellationCodes,
  getItem,
  isTransactionCancelled,
  nowIso,
  table,
  transact,
  type Item,
  type TransactItem,
} from '../platform/table';
import { auditItem, type AuditContext } from '../identity/audit';
import { equalsFilter, indexRange, type ListRange } from '../platform/list-page';
import { backoff } from '../platform/retry';

/** The most merchants one create request takes: 4 items each, 100 items per DynamoDB transaction. */
export const MAX_MERCHANTS_PER_BATCH = 25;
/** Items one merchant costs in the create transaction: participant, API key, key id, email guard. */
const ITEMS_PER_MERCHANT = 4;
const GUARD_OFFSET = 3;

/** Optional profile attributes of a merchant (stored on the participant item). */
export const PROFILE_FIELDS = ['phone', 'address', 'website', 'description', 'icon', 'country', 'state', 'industry'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

export interface MerchantRecord extends Participant {
  type: 'merchant';
  ref?: string;
  code?: string;
  address?: string;
  website?: string;
  description?: string;
  icon?: string;
  state?: string;
  industry?: string;
  trusted?: boolean;
  trustLevel?: TrustLevel;
  deviceLookupEnabled?: boolean;
  lastVerified?: string;
  /** Discovery limits its provider set (DESIGN 10.5); absent = the deployment's defaults. */
  discoveryDailyLimit?: number;
  discoveryMissLimit?: number;
  /** Optimistic-concurrency counter of trust changes. */
  trustVersion?: number;
}

export const providerMerchantsPk = (providerId: string) => `PROV#${providerId}#MERCHANTS`;

/** Reference code shown to people (`MR` + 12 upper-case alphanumerics). */
export const newMerchantRef = () => `MR${randomToken(12).toUpperCase()}`;
/** Merchant code (8 upper-case alphanumerics). */
export const newMerchantCode = () => randomToken(8).toUpperCase();

/** The merchant when it exists AND belongs to the provider; otherwise undefined (the caller answers 404). */
export async function getProviderMerchant(providerId: string, merchantId: string): Promise<MerchantRecord | undefined> {
  const p = await getParticipant(merchantId);
  if (p?.type !== 'merchant' || p.providerId !== providerId) return undefined;
  return p as MerchantRecord;
}

// ---------------------------------------------------------------------------------------
// Create (batch, all or nothing)

export interface NewMerchantInput {
  name: string;
  email: string;
  phone?: string;
  address?: string;
  website?: string;
  description?: string;
  icon?: string;
  country?: string;
  state?: string;
  industry?: string;
  bankAccount?: Partial<BankAccount>;
}

export interface CreatedMerchant {
  id: string;
  name: string;
  email: string;
  providerId: string;
  apiKey: string;
}

export type CreateMerchantsResult =
  | { ok: true; merchants: CreatedMerchant[] }
  /** Indexes (in the input) whose email already belongs to a merchant. */
  | { ok: false; duplicateIndexes: number[] };

/**
 * Creates every merchant, its API key and its email guard in ONE transaction (at most
 * MAX_MERCHANTS_PER_BATCH merchants): all are created or none is.
 */
export async function createMerchants(providerId: string, inputs: NewMerchantInput[], audit: AuditContext): Promise<CreateMerchantsResult> {
  if (inputs.length === 0 || inputs.length > MAX_MERCHANTS_PER_BATCH) {
    throw new Error(`createMerchants takes 1..${MAX_MERCHANTS_PER_BATCH} merchants`);
  }
  for (let attempt = 1; ; attempt++) {
    const items: TransactItem[] = [];
    const created: CreatedMerchant[] = [];
    const entries: Item[] = [];
    // Time-ordered ids, sorted and handed out in input order: the list (by createdAt, then
    // id) shows a batch in the order it was sent, even within one millisecond.
    const ids = inputs.map(() => newParticipantId('merchant')).sort();
    for (const [i, input] of inputs.entries()) {
      const { name, email, bankAccount, ...profile } = input;
      const merchant = buildParticipant(
        {
          type: 'merchant',
          name,
          email,
          phone: profile.phone,
          country: profile.country,
          providerId,
          bankAccount,
          extra: { ...profile, ref: newMerchantRef(), code: newMerchantCode() },
        },
        ids[i],
      );
      const key = newApiKey(merchant);
      items.push(putParticipantItem(merchant), ...key.items, merchantEmailGuard(email, merchant.id));
      created.push({ id: merchant.id, name, email, providerId, apiKey: key.apiKey });
      entries.push(
        auditItem(merchant.id, audit, 'participant.created', merchant.id),
        auditItem(merchant.id, audit, 'api_key.created', key.keyId),
      );
    }
    try {
      await transact(items);
      // Each merchant's audit log (DESIGN 9.1) names its creation and its first key, by the
      // provider. A full batch fills a transaction (25 merchants x 4 items = DynamoDB's 100),
      // so the entries follow at once in a batch write (docs/decisions/audit-log.md).
      await batchPut(entries);
      return { ok: true, merchants: created };
    } catch (e) {
      const codes = cancellationCodes(e);
      const duplicateIndexes = inputs
        .map((_, i) => i)
        .filter((i) => codes[i * ITEMS_PER_MERCHANT + GUARD_OFFSET] === 'ConditionalCheckFailed');
      if (duplicateIndexes.length > 0) return { ok: false, duplicateIndexes };
      // Contention with a concurrent transaction on the same keys: nothing was written; retry.
      if (isTransactionCancelled(e) && codes.includes('TransactionConflict') && attempt < 4) {
        await backoff(attempt, { base: 40, cap: 320 });
        continue;
      }
      throw e;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Profile update (email guard moved atomically)

/** A value to set, or null to remove an optional field. */
export type ProfileChanges = { name?: string; email?: string } & { [K in Exclude<ProfileField, 'industry'>]?: string | null };

export type UpdateProfileResult =
  | { ok: true; merchant: { id: string; name: string; email: string } }
  | { ok: false; reason: 'email_taken' | 'not_found' };

export async function updateMerchantProfile(providerId: string, merchantId: string, changes: ProfileChanges): Promise<UpdateProfileResult> {
  for (let attempt = 1; ; attempt++) {
    const current = await getProviderMerchant(providerId, merchantId);
    if (!current) return { ok: false, reason: 'not_found' };

    const names: Record<string, string> = { '#prov': 'providerId' };
    const values: Record<string, unknown> = { ':prov': providerId, ':now': nowIso() };
    const sets: string[] = ['#updatedAt = :now'];
    names['#updatedAt'] = 'updatedAt';
    const removes: string[] = [];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      if (value === null) removes.push(`#${field}`);
      else {
        values[`:${field}`] = value;
        sets.push(`#${field} = :${field}`);
      }
    }
    let condition = 'attribute_exists(pk) AND #prov = :prov';
    const items: TransactItem[] = [];
    const moveEmail = changes.email !== undefined && changes.email.trim().toLowerCase() !== current.email.trim().toLowerCase();
    if (moveEmail) {
      // The guard we delete must be the one of the email we read.
      condition += ' AND #email = :oldEmail';
      names['#email'] = 'email';
      values[':oldEmail'] = current.email;
    }
    items.push({
      Update: {
        TableName: table(),
        Key: participantKey(merchantId),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    });
    if (moveEmail) {
      items.push(merchantEmailGuard(changes.email!, merchantId), {
        Delete: {
          TableName: table(),
          Key: merchantEmailKey(current.email),
          ConditionExpression: 'attribute_not_exists(pk) OR merchantId = :id',
          ExpressionAttributeValues: { ':id': merchantId },
        },
      });
    }
    try {
      await transact(items);
      return {
        ok: true,
        merchant: { id: merchantId, name: changes.name ?? current.name, email: changes.email ?? current.email },
      };
    } catch (e) {
      const codes = cancellationCodes(e);
      if (moveEmail && codes[1] === 'ConditionalCheckFailed') return { ok: false, reason: 'email_taken' };
      // The merchant changed between our read and write (or contention): read again.
      if (isTransactionCancelled(e) && attempt < 4) {
        await backoff(attempt, { base: 20, cap: 160 });
        continue;
      }
      throw e;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Trust

/**
 * The write of a trust change, for `commit` (with its event). Conditional on the trust
 * version read, so two concurrent changes never lose one another's fields: the loser's
 * transaction is cancelled at index 0 and it retries on a fresh read.
 */
export function trustUpdateItem(
  merchant: MerchantRecord,
  next: TrustState,
  lastVerified: string,
  limits: DiscoveryLimitChanges = {},
): TransactItem {
  const version = merchant.trustVersion ?? 0;
  // A discovery limit given sets it; null removes it (the deployment's default again); omitted keeps it.
  const set: string[] = [];
  const remove: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [attr, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    if (value === null) remove.push(attr);
    else {
      set.push(`${attr} = :${attr}`);
      values[`:${attr}`] = value;
    }
  }
  return {
    Update: {
      TableName: table(),
      Key: participantKey(merchant.id),
      UpdateExpression:
        `SET ${['trusted = :t, trustLevel = :l, deviceLookupEnabled = :d, lastVerified = :v, trustVersion = :nv, updatedAt = :v', ...set].join(', ')}` +
        (remove.length ? ` REMOVE ${remove.join(', ')}` : ''),
      ConditionExpression:
        version === 0
          ? 'attribute_exists(pk) AND providerId = :prov AND attribute_not_exists(trustVersion)'
          : 'attribute_exists(pk) AND providerId = :prov AND trustVersion = :ov',
      ExpressionAttributeValues: {
        ':t': next.trusted,
        ':l': next.trustLevel,
        ':d': next.deviceLookupEnabled,
        ':v': lastVerified,
        ':nv': version + 1,
        ':prov': merchant.providerId,
        ...(version === 0 ? {} : { ':ov': version }),
        ...values,
      },
    },
  };
}

/** The discovery limits a trust change sets (DESIGN 10.5): a number sets, null removes, undefined keeps. */
export interface DiscoveryLimitChanges {
  discoveryDailyLimit?: number | null;
  discoveryMissLimit?: number | null;
}

// ---------------------------------------------------------------------------------------
// Lists

export interface MerchantSummary {
  id: string;
  name: string;
  email: string;
  trusted?: boolean;
  trustLevel?: TrustLevel;
  deviceLookupEnabled?: boolean;
  lastVerified?: string;
  createdAt: string;
}

export interface MerchantFilter {
  trusted?: boolean;
  trustLevel?: TrustLevel;
  deviceLookupEnabled?: boolean;
}

const SUMMARY_ATTRS = ['id', 'name', 'email', 'trusted', 'trustLevel', 'deviceLookupEnabled', 'lastVerified', 'createdAt'];

function matches(m: MerchantSummary, f: MerchantFilter): boolean {
  // Missing attributes read as the new-merchant defaults (untrusted, basic, disabled).
  if (f.trusted !== undefined && (m.trusted === true) !== f.trusted) return false;
  if (f.trustLevel !== undefined && (m.trustLevel ?? 'basic') !== f.trustLevel) return false;
  if (f.deviceLookupEnabled !== undefined && (m.deviceLookupEnabled === true) !== f.deviceLookupEnabled) return false;
  return true;
}

/** `matches` as a FilterExpression clause list (missing attributes read as the defaults, as there). */
function filterClauses(f: MerchantFilter): NonNullable<ListRange['filter']>[] {
  const flag = (attr: string, on: boolean, n: string) =>
    on
      ? { expression: `${n} = :ftrue`, names: { [n]: attr }, values: { ':ftrue': true } }
      : { expression: `attribute_not_exists(${n}) OR ${n} <> :ftrue`, names: { [n]: attr }, values: { ':ftrue': true } };
  const out: NonNullable<ListRange['filter']>[] = [];
  if (f.trusted !== undefined) out.push(flag('trusted', f.trusted, '#ftr'));
  if (f.deviceLookupEnabled !== undefined) out.push(flag('deviceLookupEnabled', f.deviceLookupEnabled, '#fdl'));
  if (f.trustLevel !== undefined) {
    out.push(
      f.trustLevel === 'basic'
        ? { expression: 'attribute_not_exists(#ftl) OR #ftl = :ftl', names: { '#ftl': 'trustLevel' }, values: { ':ftl': f.trustLevel } }
        : { expression: '#ftl = :ftl', names: { '#ftl': 'trustLevel' }, values: { ':ftl': f.trustLevel } },
    );
  }
  return out;
}

/**
 * The provider's merchants matching the filter, oldest first (creation order, so offsets stay
 * stable while merchants are added), as a list range (projected to the summary attributes).
 */
export function providerMerchantRange(providerId: string, filter: MerchantFilter): ListRange {
  return indexRange('gsi2', providerMerchantsPk(providerId), equalsFilter({}, filterClauses(filter)), {
    ascending: true,
    projection: SUMMARY_ATTRS,
  });
}

/** The stored item of a participant id (a list cursor; the pager checks it lies in the provider's list). */
export const merchantNamed = (id: string) => getItem(participantKey(id));

/**
 * The provider's merchants among `ids` (unknown ids and other providers' merchants are
 * left out), filtered, in creation order.
 */
export async function getProviderMerchantsByIds(
  providerId: string,
  ids: string[],
  filter: MerchantFilter,
): Promise<(MerchantSummary & { gsi2pk: string; gsi2sk: string })[]> {
  const unique = [...new Set(ids)];
  const found: (MerchantSummary & { type?: string; providerId?: string; gsi2pk: string; gsi2sk: string })[] = [];
  const attrs = [...SUMMARY_ATTRS, 'type', 'providerId', 'gsi2pk', 'gsi2sk'];
  const names = Object.fromEntries(attrs.map((a) => [`#${a}`, a]));
  for (let i = 0; i < unique.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((id) => participantKey(id));
    for (let round = 0; keys && keys.length > 0; round++) {
      if (round > 0) await backoff(round + 1, { base: 25, cap: 500, jitter: 0 });
      const out = await db().send(
        new BatchGetCommand({
          RequestItems: {
            [table()]: {
              Keys: keys,
              ConsistentRead: true,
              ProjectionExpression: Object.keys(names).join(', '),
              ExpressionAttributeNames: names,
            },
          },
        }),
      );
      found.push(...((out.Responses?.[table()] ?? []) as typeof found));
      keys = out.UnprocessedKeys?.[table()]?.Keys as Record<string, unknown>[] | undefined;
      if (round > 8 && keys?.length) throw new Error('BatchGet did not finish');
    }
  }
  return found
    .filter((m) => m.type === 'merchant' && m.providerId === providerId && matches(m, filter))
    .sort((a, b) => byteOrder(a.gsi2sk, b.gsi2sk))
    .map(({ type: _t, providerId: _p, ...m }) => m);
}

/** The order of gsi2sk in the index (binary, like DynamoDB; ids and ISO times are ASCII). */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A merchant's trust state, read fresh (strongly consistent, never cached) so a provider's
 * change applies at once; undefined when the id is not a merchant. The rules that use it
 * are the pure ones of domain/trust.ts and domain/decisions.ts.
 */
export async function loadMerchantTrust(merchantId: string): Promise<TrustState | undefined> {
  const m = await getParticipant(merchantId);
  return m && m.type === 'merchant' ? trustOf(m) : undefined;
}

/** The merchant may hold approve_recurring decisions now (DESIGN 6.5, 8.1). */
export async function isTrustedMerchant(merchantId: string): Promise<boolean> {
  const t = await loadMerchantTrust(merchantId);
  return t !== undefined && canReceiveApproveRecurring(t);
}
