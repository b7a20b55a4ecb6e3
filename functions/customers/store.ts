/**
 * Bank customers (DESIGN 6.9) and their discovery index (DESIGN 6.5).
 *
 *   CUS#<customerId> / PROFILE                  the customer (personal data; never logged,
 *                                               never returned to merchants)
 *     gsi1 EMAIL#<email lower> / <createdAt>#<customerId>   email lookup, every bank
 *     gsi2 BANK#<bankId>#CUSTOMERS / <createdAt>#<customerId>   a bank's customers
 *   UNIQ#CREF#<bankId>#<clientRef> / UNIQ       uniqueness guard of a bank's clientRef
 *   UNIQ#REF#<bankId>#<reference> / UNIQ        uniqueness guard of a bank's reference
 *   BATCH#<batchId> / BATCH                     batch result (summary, customer ids)
 *   BATCH#<batchId> / FAIL#<chunk 0000>         its failure entries, 200 per item
 *   DEVICE#<deviceId> / DEVICE                  device link: one device, one customer
 *
 * A customer, its two guards and its index attributes are written in ONE transaction, so a
 * customer exists exactly when its guards do, is discoverable as soon as it exists, and two
 * concurrent batches can never both create the same clientRef or reference.
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createHmac } from 'node:crypto';
import {
  DUPLICATE_REASON,
  planBatch,
  summarize,
  type BatchFailure,
  type BatchSummary,
  type CustomerInput,
  type FailureEntry,
} from '../domain/customers';
import { newId } from '../domain/ids';
import { purposeKey } from '../domain/secrets';
import { db } from '../platform/clients';
import {
  cancellationCodes,
  getItem,
  isConditionFailure,
  isTransactionCancelled,
  nowIso,
  putItem,
  table,
  transact,
  type Item,
  type TransactItem,
  queryPages,
} from '../platform/table';
import { backoff, conflictBackoff, mapLimit } from '../platform/retry';

// ---------------------------------------------------------------------------------------
// Keys and items

export * from './views';
import {
  bankCustomersPk,
  batchKey,
  batchPk,
  clientRefGuardKey,
  customerKey,
  deviceKey,
  emailIndexPk,
  referenceGuardKey,
  type CustomerRecord,
} from './views';

export function buildCustomer(bankId: string, batchId: string, input: CustomerInput, createdAt: string, id = newId('cus')): CustomerRecord {
  return {
    ...customerKey(id),
    sk: 'PROFILE',
    type: 'customer',
    id,
    bankId,
    batchId,
    ...input,
    createdAt,
    gsi1pk: emailIndexPk(input.email),
    gsi1sk: `${createdAt}#${id}`,
    gsi2pk: bankCustomersPk(bankId),
    gsi2sk: `${createdAt}#${id}`,
  };
}

// ---------------------------------------------------------------------------------------
// Batch create

/** Status of a batch: every record is processed (and discoverable) when the POST answers. */
export type BatchStatus = 'COMPLETED' | 'PROCESSING';

/** Items per customer in the create transaction: customer, clientRef guard, reference guard. */
const ITEMS_PER_CUSTOMER = 3;
/** 33 customers = 99 items: the most one TransactWriteItems takes (100). */
export const CUSTOMERS_PER_TRANSACTION = Math.floor(100 / ITEMS_PER_CUSTOMER);
/** Transactions of one batch in flight at once (they touch disjoint keys). */
export const WRITE_CONCURRENCY = 8;
/** Failure entries per stored failure item (keeps every item far below 400 KB). */
const FAILURES_PER_ITEM = 200;
const MAX_CONFLICT_RETRIES = 8;

export interface BatchResult {
  batchId: string;
  status: BatchStatus;
  summary: BatchSummary;
  data: { createdCount: number; customerIds: string[] };
}

export interface StoredBatch extends BatchResult {
  bankId: string;
  failures: BatchFailure[];
  createdAt: string;
}

const guardItem = (key: { pk: string; sk: string }, bankId: string, customerId: string): TransactItem => ({
  Put: { TableName: table(), Item: { ...key, bankId, customerId }, ConditionExpression: 'attribute_not_exists(pk)' },
});

type Candidate = { index: number; customer: CustomerRecord };

/**
 * Writes one chunk (at most CUSTOMERS_PER_TRANSACTION) in one transaction. A cancelled
 * transaction wrote nothing: the records whose guard failed are duplicates of existing
 * customers (of earlier batches or of a concurrent one) and leave the chunk; the rest is
 * written again. Conflicts with a concurrent transaction are retried with backoff.
 */
async function writeChunk(chunk: Candidate[]): Promise<{ created: Candidate[]; duplicates: FailureEntry[] }> {
  let pending = chunk;
  const duplicates: FailureEntry[] = [];
  for (let attempt = 1; pending.length > 0; attempt++) {
    const items = pending.flatMap(({ customer: c }) => [
      { Put: { TableName: table(), Item: c, ConditionExpression: 'attribute_not_exists(pk)' } },
      guardItem(clientRefGuardKey(c.bankId, c.clientRef), c.bankId, c.id),
      guardItem(referenceGuardKey(c.bankId, c.reference), c.bankId, c.id),
    ]);
    try {
      await transact(items);
      return { created: pending, duplicates };
    } catch (e) {
      if (!isTransactionCancelled(e)) throw e;
      const codes = cancellationCodes(e);
      const rest: Candidate[] = [];
      for (let i = 0; i < pending.length; i++) {
        const cand = pending[i]!;
        const at = i * ITEMS_PER_CUSTOMER;
        const { clientRef } = cand.customer;
        if (codes[at + 1] === 'ConditionalCheckFailed') {
          duplicates.push({ index: cand.index, clientRef, reason: DUPLICATE_REASON.clientRefExisting, kind: 'duplicate' });
        } else if (codes[at + 2] === 'ConditionalCheckFailed') {
          duplicates.push({ index: cand.index, clientRef, reason: DUPLICATE_REASON.referenceExisting, kind: 'duplicate' });
        } else if (codes[at] === 'ConditionalCheckFailed') {
          // A customer id collision (practically impossible): retry the record with a new id.
          rest.push({ index: cand.index, customer: { ...cand.customer, ...rekey(cand.customer) } });
        } else rest.push(cand);
      }
      const progressed = rest.length < pending.length || rest.some((r, i) => r !== pending[i]);
      pending = rest;
      if (progressed) continue;
      // Nothing identified: a conflict with a concurrent transaction (or throttling). Retry.
      if (attempt >= MAX_CONFLICT_RETRIES) throw e;
      await conflictBackoff(attempt + 1, { base: 20, cap: 1000 });
    }
  }
  return { created: [], duplicates };
}

function rekey(c: CustomerRecord): Partial<CustomerRecord> {
  const id = newId('cus');
  return { pk: customerKey(id).pk, id, gsi1sk: `${c.createdAt}#${id}`, gsi2sk: `${c.createdAt}#${id}` };
}

/**
 * Processes a whole batch: validation and in-batch duplicates (domain/customers.ts), then
 * the chunked conditional writes with bounded concurrency, then the batch record. Every
 * record gets exactly one outcome: created, duplicate or invalid.
 */
export async function createCustomerBatch(bankId: string, records: readonly unknown[]): Promise<StoredBatch> {
  const batchId = newId('bat');
  const createdAt = nowIso();
  const plan = planBatch(records);
  const candidates: Candidate[] = plan.candidates.map(({ index, input }) => ({
    index,
    customer: buildCustomer(bankId, batchId, input, createdAt),
  }));
  const chunks: Candidate[][] = [];
  for (let i = 0; i < candidates.length; i += CUSTOMERS_PER_TRANSACTION) chunks.push(candidates.slice(i, i + CUSTOMERS_PER_TRANSACTION));
  const outcomes = await mapLimit(chunks, WRITE_CONCURRENCY, writeChunk);

  const created = outcomes.flatMap((o) => o.created).sort((a, b) => a.index - b.index);
  const failures = [...plan.failures, ...outcomes.flatMap((o) => o.duplicates)].sort((a, b) => a.index - b.index);
  const batch: StoredBatch = {
    batchId,
    bankId,
    status: 'COMPLETED',
    summary: summarize(records.length, created.length, failures),
    data: { createdCount: created.length, customerIds: created.map((c) => c.customer.id) },
    failures: failures.map(({ index, clientRef, reason }) => ({ index, clientRef, reason })),
    createdAt,
  };
  await saveBatch(batch);
  return batch;
}

/** The batch item and its failure items, in one BatchWriteItem (no conditions: a new random id). */
async function saveBatch(b: StoredBatch): Promise<void> {
  const { failures, ...head } = b;
  const items: Item[] = [{ ...batchKey(b.batchId), ...head, failureItems: Math.ceil(failures.length / FAILURES_PER_ITEM) }];
  for (let i = 0, n = 0; i < failures.length; i += FAILURES_PER_ITEM, n++) {
    items.push({ pk: batchPk(b.batchId), sk: `FAIL#${String(n).padStart(4, '0')}`, failures: failures.slice(i, i + FAILURES_PER_ITEM) });
  }
  await batchPut(items);
}

/** BatchWriteItem in groups of 25, retrying unprocessed items with backoff. */
export async function batchPut(items: Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    type Requests = NonNullable<ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']>[string];
    let requests: Requests | undefined = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests && requests.length > 0; round++) {
      if (round > 0) await backoff(round + 1, { base: 25, cap: 1000, jitter: 0 });
      if (round > 10) throw new Error('BatchWriteItem did not finish');
      const out = await db().send(new BatchWriteCommand({ RequestItems: { [table()]: requests } }));
      requests = out.UnprocessedItems?.[table()] as Requests | undefined;
    }
  }
}

/** A bank's own batch (failures included), or undefined (unknown, or another bank's). */
export async function getBankBatch(bankId: string, batchId: string): Promise<StoredBatch | undefined> {
  const items: Item[] = [];
  await queryPages(
    { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': batchPk(batchId) }, ConsistentRead: true },
    (page) => {
      items.push(...page);
    },
  );
  const head = items.find((i) => i.sk === 'BATCH') as (StoredBatch & Item) | undefined;
  if (!head || head.bankId !== bankId) return undefined;
  const failures = items
    .filter((i) => typeof i.sk === 'string' && i.sk.startsWith('FAIL#'))
    .sort((a, b) => String(a.sk).localeCompare(String(b.sk)))
    .flatMap((i) => i.failures as BatchFailure[]);
  return {
    batchId: head.batchId,
    bankId: head.bankId,
    status: head.status,
    summary: head.summary,
    data: head.data,
    failures,
    createdAt: head.createdAt,
  };
}

// ---------------------------------------------------------------------------------------
// Discovery: email

/** Most customers one email lookup returns (one per bank in practice). */
export const MAX_EMAIL_MATCHES = 100;

/**
 * Every bank's customers with this email (compared case-insensitively), oldest first. Reads
 * gsi1 (eventually consistent on AWS, typically well under a second after the write).
 */
export async function customersByEmail(email: string): Promise<Pick<CustomerRecord, 'id' | 'bankId' | 'createdAt'>[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': emailIndexPk(email) },
      ExpressionAttributeNames: { '#type': 'type', '#id': 'id', '#bankId': 'bankId', '#createdAt': 'createdAt' },
      ProjectionExpression: '#id, #bankId, #createdAt, #type',
      Limit: MAX_EMAIL_MATCHES,
    }),
  );
  return (out.Items ?? [])
    .filter((i) => i.type === 'customer')
    .map((i) => ({ id: i.id as string, bankId: i.bankId as string, createdAt: i.createdAt as string }));
}

// ---------------------------------------------------------------------------------------
// Discovery: device link

export interface DeviceLink {
  pk: string;
  sk: 'DEVICE';
  deviceId: string;
  customerId: string;
  bankId: string;
  /** HMAC-SHA256 of the bank's phrase (never stored or returned in plain). */
  phraseHash: string;
  linkedAt: string;
  updatedAt: string;
}

export const getDeviceLink = (deviceId: string) => getItem<DeviceLink & Item>(deviceKey(deviceId));

/** The phrase is kept only as a keyed hash bound to its device (verifiable, not reversible). */
async function hashPhrase(deviceId: string, phrase: string): Promise<string> {
  const key = await purposeKey('device-link-phrase');
  return createHmac('sha256', key).update(deviceId).update('\u0000').update(phrase).digest('hex');
}

export type LinkResult =
  | { ok: true; link: Pick<DeviceLink, 'customerId' | 'deviceId' | 'linkedAt'> }
  | { ok: false; reason: 'linked_to_other_bank' };

/**
 * Links a device to one of the bank's customers. A device identifies ONE customer:
 *  - not linked yet: linked;
 *  - linked to the same customer: idempotent (same linkedAt; the phrase is replaced);
 *  - linked to another customer of the SAME bank: moved to this customer (new linkedAt);
 *  - linked to a customer of ANOTHER bank: refused (no bank can take another's device).
 * Every write is conditional on what was read, so concurrent links cannot interleave.
 */
export async function linkDevice(customer: Pick<CustomerRecord, 'id' | 'bankId'>, deviceId: string, phrase: string): Promise<LinkResult> {
  const phraseHash = await hashPhrase(deviceId, phrase);
  for (let attempt = 1; ; attempt++) {
    const current = await getDeviceLink(deviceId);
    if (current && current.bankId !== customer.bankId) return { ok: false, reason: 'linked_to_other_bank' };
    const now = nowIso();
    const same = current?.customerId === customer.id;
    const link: DeviceLink = {
      ...deviceKey(deviceId),
      sk: 'DEVICE',
      deviceId,
      customerId: customer.id,
      bankId: customer.bankId,
      phraseHash,
      linkedAt: same ? current!.linkedAt : now,
      updatedAt: now,
    };
    try {
      if (current) {
        await putItem(link as unknown as Item, 'customerId = :c AND bankId = :b AND linkedAt = :l', undefined, {
          ':c': current.customerId,
          ':b': current.bankId,
          ':l': current.linkedAt,
        });
      } else {
        await putItem(link as unknown as Item, 'attribute_not_exists(pk)');
      }
      return { ok: true, link: { customerId: link.customerId, deviceId, linkedAt: link.linkedAt } };
    } catch (e) {
      // Changed since we read it: decide again on the new state.
      if (isConditionFailure(e) && attempt < 5) continue;
      throw e;
    }
  }
}
