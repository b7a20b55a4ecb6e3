/**
 * Tick throughput: BENCH_TICK_ITEMS (10,000) items due at once on the sharded due index,
 * claimed by ONE scheduler tick (functions/platform/due.ts: a Query per shard, a conditional
 * UpdateItem per item, SendMessageBatch of 10 to the jobs queue) and run by the jobs worker
 * through the local SQS pollers (4 per queue, as `npm start`).
 *
 * The due kind is synthetic (`bench.noop`, registered here): its worker only takes the item
 * off the index with the claim-conditioned UpdateItem every real kind ends with, so the
 * figures are the time path's own cost and throughput (a real kind adds its own state
 * change: a recurring run adds a billing, see the bill figures). Checks: every item run,
 * none twice, nothing left due after a second tick.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, queue } from '../../functions/platform/clients';
import { clearDueUpdate, dueAttributes, registerDueKind, shardOf } from '../../functions/platform/due';
import { UpdateCommand, isConditionFailure } from '../../functions/platform/table';
import { DdbCounter, SqsCounter, perUnit } from './counters';
import { startBenchStack } from './stack';
import { bump, mapLimit, round, sleep } from './stats';
import { loadAverage } from './results';

const KIND = 'bench.noop';

export async function runTickBench(items = Number(process.env.BENCH_TICK_ITEMS ?? (process.env.BENCH_QUICK === '1' ? 2000 : 10_000))) {
  const loadStart = loadAverage();
  const runs = new Map<string, number>();
  registerDueKind(KIND, async (job) => {
    runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
    try {
      await db().send(new UpdateCommand(clearDueUpdate(job.key, job.leasedSk).Update as ConstructorParameters<typeof UpdateCommand>[0]));
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  });
  const stack = await startBenchStack({ pollers: 4 });
  try {
    const ddb = new DdbCounter().install(db());
    const sqs = new SqsCounter().install(queue());
    const table = process.env.TABLE_NAME!;
    const dueAt = new Date(Date.now() - 60_000);
    const ids = Array.from({ length: items }, (_, i) => `bdue_${String(i).padStart(6, '0')}`);
    const perShard: Record<string, number> = {};
    for (const id of ids) bump(perShard, String(shardOf(id)));

    // Seed (not measured as the tick): BatchWriteItem of 25.
    const seedStarted = performance.now();
    const chunks: string[][] = [];
    for (let i = 0; i < ids.length; i += 25) chunks.push(ids.slice(i, i + 25));
    await mapLimit(chunks, 8, async (chunk) => {
      let req: Record<string, any[]> | undefined = {
        [table]: chunk.map((id) => ({
          PutRequest: { Item: { pk: `BENCHDUE#${id}`, sk: 'BENCHDUE', type: 'bench', ...dueAttributes(KIND, id, dueAt) } },
        })),
      };
      for (let attempt = 0; req && Object.keys(req).length && attempt < 10; attempt++) {
        const out = await db().send(new BatchWriteCommand({ RequestItems: req }));
        req = out.UnprocessedItems as Record<string, any[]> | undefined;
      }
    });
    const seedMs = Math.round(performance.now() - seedStarted);

    // The tick: claim everything due and enqueue it.
    ddb.reset();
    sqs.reset();
    const t0 = performance.now();
    const tick = await stack.app.tick(new Date());
    const tickMs = performance.now() - t0;
    const tickSqs = sqs.reset();

    // The jobs worker drains the queue.
    const deadline = Date.now() + 10 * 60_000;
    while (runs.size < items && Date.now() < deadline) await sleep(100);
    const doneMs = performance.now() - t0;
    await stack.app.settle(60_000).catch(() => undefined);
    // Jobs start running while the tick is still enqueueing, so tick and worker requests are
    // counted together: per item 1 claim UpdateItem (+ a Query page per shard) and 1 finish UpdateItem.
    const allDdb = ddb.reset();

    // A second tick finds nothing left.
    const again = await stack.app.tick(new Date(Date.now() + 1000));
    const doubleRuns = [...runs.values()].filter((n) => n > 1).length;
    const missing = items - runs.size;
    return {
      items,
      shards: Object.keys(perShard).length,
      perShard,
      seedMs,
      tick: {
        ...tick,
        ms: Math.round(tickMs),
        // Shards with more than DUE_TICK_INLINE due items go to claim jobs (platform/due.ts): the
        // tick itself claims only the quiet ones, so the end-to-end rate is the figure to read.
        claimsPerSecond: tick.claimed > 0 ? round(tick.claimed / (tickMs / 1000), 1) : null,
        note: "query of every shard + conditional claim of the quiet shards' items (busy shards: one claim job each, claimed by the jobs workers) + SendMessageBatch of 10; the jobs worker starts on the first batches meanwhile",
      },
      endToEnd: { ms: Math.round(doneMs), itemsPerSecond: round(items / (doneMs / 1000), 1) },
      worker: { ms: Math.round(doneMs - tickMs), itemsPerSecond: round(items / ((doneMs - tickMs) / 1000), 1) },
      dynamodbPerItem: perUnit(allDdb, items, 3),
      sqsPerItem: {
        tickSends: round(tickSqs.requests / items, 3),
        messages: round(tickSqs.messagesSent / items, 3),
        note: 'plus the event source: ~1 ReceiveMessage and 1 DeleteMessageBatch per batch of 10',
      },
      secondTick: again,
      doubleRuns,
      missing,
      ok: doubleRuns === 0 && missing === 0 && again.found === 0,
      loadAverage: { start: loadStart, end: loadAverage() },
    };
  } finally {
    await stack.stop();
  }
}
