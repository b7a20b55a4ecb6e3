import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { config } from '../config';
import { CARRIED_EVENT } from './definitions';
import { currentTestClock } from './clock';
import { db, queue } from './clients';
import { isConditionFailure, queryPages, table, type Key } from './table';
import { logger } from './log';
import { mapLimit } from './retry';

/**
 * The time path (DESIGN 2): anything due at a time carries `duePk`/`dueSk` (a sparse,
 * sharded GSI). The tick claims due items with a conditional write that moves them a
 * lease into the future, and fans them out to the jobs queue. The kind's worker finishes
 * the item by clearing or rescheduling its due attributes in its own state transition;
 * if a worker dies, the lease expires and the item is due again. Kind workers must make
 * their effect conditional on the item's state, so a repeat run changes nothing.
 */
export interface DueJob {
  kind: string;
  id: string;
  key: Key;
  /** When the item was due (ISO). */
  dueAt: string;
  /** The dueSk the claim wrote: a worker that finishes conditions on it. */
  leasedSk: string;
  /** The tick's scheduled time (ISO): workers take "now" from here, never from a clock. */
  now: string;
}

export type DueHandler = (job: DueJob) => Promise<void>;

/**
 * Kinds added at run time, for tests and benchmarks only (an example kind beside the real
 * ones). The application's kinds are the explicit table `DUE_KINDS` (functions/workers/kinds.ts).
 */
const extraKinds = new Map<string, DueHandler>();

export function registerDueKind(kind: string, handler: DueHandler): void {
  extraKinds.set(kind, handler);
}

export function extraDueHandler(kind: string): DueHandler | undefined {
  return extraKinds.get(kind);
}

export function shardOf(id: string): number {
  return createHash('sha1').update(id).digest().readUInt32BE(0) % config.dueShards();
}

/**
 * Attributes that put an item on the due index at `at` (spread into the item). Inside a test
 * clock's context (platform/clock.ts) the item goes to that clock's partition, which only the
 * clock's advance reads.
 */
export function dueAttributes(kind: string, id: string, at: string | Date): { duePk: string; dueSk: string } {
  const clock = currentTestClock();
  return clock ? { duePk: clockDuePk(clock), dueSk: dueSkOf(kind, id, at) } : realDueAttributes(kind, id, at);
}

/** On the real due index whatever the context (webhook delivery recovery runs on real time). */
export function realDueAttributes(kind: string, id: string, at: string | Date): { duePk: string; dueSk: string } {
  return { duePk: `DUE#${shardOf(id)}`, dueSk: dueSkOf(kind, id, at) };
}

const dueSkOf = (kind: string, id: string, at: string | Date) => `${typeof at === 'string' ? at : at.toISOString()}#${kind}#${id}`;

/** The due index partition of a test clock's items. */
export const clockDuePk = (clockId: string) => `CLOCK#${clockId}`;

export function parseDueSk(dueSk: string): { at: string; kind: string; id: string } {
  const [at, kind, ...rest] = dueSk.split('#');
  return { at: at!, kind: kind!, id: rest.join('#') };
}

export interface DueEntry {
  pk: string;
  sk: string;
  dueSk: string;
}

/** The due index entries of one shard due at or before `at` (keys only), oldest first. */
export const queryDue = (shard: number, at: Date, maxItems = 10_000): Promise<DueEntry[]> =>
  queryDuePartition(`DUE#${shard}`, at, maxItems);

/** The entries of one due index partition (a shard, or a test clock's) due at or before `at`, oldest first. */
export async function queryDuePartition(duePk: string, at: Date, maxItems = 10_000): Promise<DueEntry[]> {
  const due: DueEntry[] = [];
  await queryPages(
    {
      IndexName: 'due',
      KeyConditionExpression: 'duePk = :p AND dueSk <= :t',
      ExpressionAttributeValues: { ':p': duePk, ':t': `${at.toISOString()}#~` },
      // A small read (the test clock's next instant) asks for just that; large ones (the tick,
      // settlements: up to unbounded) read whole pages, which Limit would only cut short.
      ...(maxItems < 100 ? { Limit: maxItems } : {}),
    },
    (page) => {
      for (const it of page) due.push(it as unknown as DueEntry);
      return due.length < maxItems;
    },
  );
  return due;
}

export interface TickResult {
  /** Due items the tick found in the shards it claimed itself. */
  found: number;
  claimed: number;
  /** Jobs sent to the jobs queue (claimed items and claim jobs). */
  enqueued: number;
  /** Shards with more than `DUE_TICK_INLINE` due items, handed to a claim job each. */
  fannedOut: number;
}

/** The job kind of a claim job: one shard's due items claimed by a jobs worker (the tick's fan-out). */
export const DUE_CLAIM_KIND = 'due.claim';
/** Conditional claims in flight per shard. */
const CLAIMS_IN_FLIGHT = 16;

/** A claim job for one shard of the due index at the tick's time. */
export const claimJobOf = (shard: number, nowIso: string): DueJob => ({
  kind: DUE_CLAIM_KIND,
  id: String(shard),
  key: { pk: `DUE#${shard}`, sk: DUE_CLAIM_KIND },
  dueAt: nowIso,
  leasedSk: '',
  now: nowIso,
});

/**
 * One tick: every shard's due items at or before `scheduledTime`. A shard with at most
 * `DUE_TICK_INLINE` is claimed here; a busier one goes to a claim job (`due.claim`), so on a
 * peak (the 1st of the month) as many jobs workers as shards claim in parallel instead of one
 * Lambda's minute. Claims are conditional: concurrent ticks and claim jobs claim an item once.
 */
export async function runTick(scheduledTime: Date): Promise<TickResult> {
  const nowIso = scheduledTime.toISOString();
  const inline = config.dueTickInline();
  const result: TickResult = { found: 0, claimed: 0, enqueued: 0, fannedOut: 0 };
  const jobs: DueJob[] = [];
  await Promise.all(
    Array.from({ length: config.dueShards() }, async (_, shard) => {
      const due = await queryDue(shard, scheduledTime, inline + 1);
      if (due.length > inline) {
        result.fannedOut++;
        jobs.push(claimJobOf(shard, nowIso));
        return;
      }
      result.found += due.length;
      const claimed = await claimAll(due, scheduledTime);
      result.claimed += claimed.length;
      jobs.push(...claimed);
    }),
  );
  result.enqueued = await enqueueJobs(jobs);
  return result;
}

/**
 * Claim job (`due.claim`): claims up to `DUE_CLAIM_JOB_MAX` due items of its shard at the tick's
 * time and enqueues them; when the shard holds more, the next claim job takes over.
 */
export async function runClaimJob(job: DueJob): Promise<void> {
  const shard = Number(job.id);
  const at = new Date(job.now);
  const max = config.dueClaimJobMax();
  const due = await queryDue(shard, at, max + 1);
  const claimed = await claimAll(due.slice(0, max), at);
  const more = due.length > max ? [claimJobOf(shard, job.now)] : [];
  await enqueueJobs([...claimed, ...more]);
  logger.info('due shard claimed', { shard, found: Math.min(due.length, max), claimed: claimed.length, more: more.length > 0 });
}

/** Claims each entry (a lease from `at`); the jobs of the ones this claimer won. */
async function claimAll(due: DueEntry[], at: Date): Promise<DueJob[]> {
  const nowIso = at.toISOString();
  const leaseIso = new Date(at.getTime() + config.dueLeaseSeconds() * 1000).toISOString();
  const jobs: DueJob[] = [];
  await mapLimit(due, CLAIMS_IN_FLIGHT, async (it) => {
    const job = await claimDue(it, leaseIso, nowIso);
    if (job) jobs.push(job); // else another tick claimed it, or it changed
  });
  return jobs;
}

/** Sends jobs to the jobs queue in batches of 10; how many were accepted. */
async function enqueueJobs(jobs: DueJob[]): Promise<number> {
  const url = config.queueUrl('jobs');
  const batches: DueJob[][] = [];
  for (let i = 0; i < jobs.length; i += 10) batches.push(jobs.slice(i, i + 10));
  let enqueued = 0;
  await mapLimit(batches, 8, async (batch) => {
    const out = await queue().send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: batch.map((j, n) => ({ Id: String(n), MessageBody: JSON.stringify(j) })),
      }),
    );
    enqueued += out.Successful?.length ?? 0;
    // A job that failed to enqueue stays leased and becomes due again when the lease ends
    // (a lost claim job: the next tick finds its shard's items still due).
    if (out.Failed?.length) logger.warn('jobs not enqueued', { failed: out.Failed.length });
  });
  return enqueued;
}

/**
 * Claim a due entry for a worker: its dueSk moves to the lease (`leaseIso`) with a write
 * conditioned on the dueSk seen, so one claimer wins. The job, or undefined when it lost.
 */
export async function claimDue(it: DueEntry, leaseIso: string, nowIso: string): Promise<DueJob | undefined> {
  const { at, kind, id } = parseDueSk(it.dueSk);
  const leasedSk = `${leaseIso}#${kind}#${id}`;
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: it.pk, sk: it.sk },
        UpdateExpression: `SET dueSk = :lease, dueClaimedAt = :now ADD dueClaims :one REMOVE ${CARRIED_EVENT}`,
        ConditionExpression: 'dueSk = :seen',
        ExpressionAttributeValues: { ':lease': leasedSk, ':now': nowIso, ':seen': it.dueSk, ':one': 1 },
      }),
    );
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
  return { kind, id, key: { pk: it.pk, sk: it.sk }, dueAt: at, leasedSk, now: nowIso };
}

/** Remove an item from the due index, only if this worker's claim still holds. */
export function clearDueUpdate(key: Key, leasedSk: string) {
  return {
    Update: {
      TableName: table(),
      Key: key,
      UpdateExpression: `REMOVE duePk, dueSk, ${CARRIED_EVENT}`,
      ConditionExpression: 'dueSk = :leased',
      ExpressionAttributeValues: { ':leased': leasedSk },
    },
  };
}

/**
 * Take an item off the due index if this worker's claim still holds it (a newer claim or a
 * state change since then wins); false when it did not.
 */
export async function releaseClaim(key: Key, leasedSk: string): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(clearDueUpdate(key, leasedSk).Update));
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/**
 * Claimed too early for the clock: make the item due again at `at`, only while our lease
 * (`leasedSk`) holds and, when given, while its `status` is still `whileStatus`. False when
 * someone else moved it on.
 */
export async function rescheduleClaim(
  key: Key,
  kind: string,
  id: string,
  at: string | Date,
  leasedSk: string,
  whileStatus?: string,
): Promise<boolean> {
  const due = dueAttributes(kind, id, at);
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: `SET duePk = :pk, dueSk = :sk REMOVE ${CARRIED_EVENT}`,
        ConditionExpression: whileStatus === undefined ? 'dueSk = :leased' : 'dueSk = :leased AND #s = :status',
        ...(whileStatus === undefined ? {} : { ExpressionAttributeNames: { '#s': 'status' } }),
        ExpressionAttributeValues: {
          ':pk': due.duePk,
          ':sk': due.dueSk,
          ':leased': leasedSk,
          ...(whileStatus === undefined ? {} : { ':status': whileStatus }),
        },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}
