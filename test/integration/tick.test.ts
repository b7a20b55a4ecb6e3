import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { dueAttributes, registerDueKind, clearDueUpdate, shardOf, type DueJob } from '../../functions/platform/due';
import { getItem, putItem, transact, table } from '../../functions/platform/table';

let t: TestApp;
const runs: DueJob[] = [];

beforeAll(async () => {
  t = await startTestApp({ DUE_SHARDS: '4' });
  // An example due kind: counts its runs on the item and leaves the due index.
  registerDueKind('example', async (job) => {
    runs.push(job);
    await transact([
      clearDueUpdate(job.key, job.leasedSk),
      {
        Update: {
          TableName: table(),
          Key: { pk: `${job.key.pk}#RUNS`, sk: 'RUNS' },
          UpdateExpression: 'ADD runCount :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ]);
  });
});
afterAll(async () => t?.stop());

async function seed(n: number, dueAt: string, prefix: string) {
  await Promise.all(
    Array.from({ length: n }, (_, i) => putItem({ pk: `EX#${prefix}${i}`, sk: 'EX', ...dueAttributes('example', `${prefix}${i}`, dueAt) })),
  );
}

describe('scheduler tick', () => {
  it('runs items due at or before the scheduled time, and nothing later', async () => {
    await seed(3, '2030-01-01T00:00:00.000Z', 'a');
    await seed(2, '2030-01-01T00:05:00.000Z', 'b');
    const r = await t.app.tick(new Date('2030-01-01T00:01:00.000Z'));
    expect(r).toEqual({ found: 3, claimed: 3, enqueued: 3, fannedOut: 0 });
    await t.app.settle();
    for (let i = 0; i < 3; i++) expect(await getItem({ pk: `EX#a${i}#RUNS`, sk: 'RUNS' })).toMatchObject({ runCount: 1 });
    for (let i = 0; i < 2; i++) expect(await getItem({ pk: `EX#b${i}#RUNS`, sk: 'RUNS' })).toBeUndefined();
    const job = runs.find((j) => j.id === 'a0')!;
    expect(job).toMatchObject({ kind: 'example', dueAt: '2030-01-01T00:00:00.000Z', now: '2030-01-01T00:01:00.000Z' });
    // a ran item left the due index
    expect((await getItem({ pk: 'EX#a0', sk: 'EX' }))?.dueSk).toBeUndefined();
    // the later ones run when their time comes
    const later = await t.app.tick(new Date('2030-01-01T00:05:00.000Z'));
    expect(later.claimed).toBe(2);
    await t.app.settle();
    expect(await getItem({ pk: 'EX#b1#RUNS', sk: 'RUNS' })).toMatchObject({ runCount: 1 });
  });

  it('claims each due item exactly once when two ticks run concurrently', async () => {
    await seed(60, '2031-01-01T00:00:00.000Z', 'c');
    const at = new Date('2031-01-01T00:00:30.000Z');
    const [r1, r2, r3] = await Promise.all([t.app.tick(at), t.app.tick(at), t.app.tick(at)]);
    expect(r1!.claimed + r2!.claimed + r3!.claimed).toBe(60);
    await t.app.settle();
    const counts = await Promise.all(Array.from({ length: 60 }, (_, i) => getItem({ pk: `EX#c${i}#RUNS`, sk: 'RUNS' })));
    expect(counts.map((c) => c?.runCount)).toEqual(Array(60).fill(1));
  });

  it('makes an item due again when its worker never finished (lease expiry)', async () => {
    // Claimed but never cleared: as if the worker crashed.
    await putItem({ pk: 'EX#crash', sk: 'EX', ...dueAttributes('example', 'crash', '2032-01-01T00:00:00.000Z') });
    const at = new Date('2032-01-01T00:00:00.000Z');
    const { dueSk } = (await getItem({ pk: 'EX#crash', sk: 'EX' })) as { dueSk: string };
    // simulate a claim by an earlier tick whose job was lost
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db } = await import('../../functions/platform/clients');
    const leased = dueSk.replace('2032-01-01T00:00:00.000Z', '2032-01-01T00:05:00.000Z');
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: 'EX#crash', sk: 'EX' },
        UpdateExpression: 'SET dueSk = :l',
        ExpressionAttributeValues: { ':l': leased },
      }),
    );
    expect((await t.app.tick(at)).claimed).toBe(0);
    expect((await t.app.tick(new Date('2032-01-01T00:05:00.000Z'))).claimed).toBe(1);
    await t.app.settle();
    expect(await getItem({ pk: 'EX#crash#RUNS', sk: 'RUNS' })).toMatchObject({ runCount: 1 });
  });

  it('fans busy shards out to claim jobs (one per shard, continued past DUE_CLAIM_JOB_MAX): every item runs once, also with concurrent ticks', async () => {
    await t.app.updateEnvironment({ DUE_TICK_INLINE: '5', DUE_CLAIM_JOB_MAX: '7' });
    try {
      await seed(80, '2033-01-01T00:00:00.000Z', 'f');
      const perShard = new Map<number, number>();
      for (let i = 0; i < 80; i++) perShard.set(shardOf(`f${i}`), (perShard.get(shardOf(`f${i}`)) ?? 0) + 1);
      const busy = [...perShard.values()].filter((n) => n > 5).length;
      const quiet = [...perShard.values()].filter((n) => n <= 5).reduce((s, n) => s + n, 0);
      const at = new Date('2033-01-01T00:00:30.000Z');
      const [r1, r2] = await Promise.all([t.app.tick(at), t.app.tick(at)]);
      // Each tick hands each busy shard to a claim job and claims the quiet ones itself.
      expect(r1!.fannedOut).toBe(busy);
      expect(r2!.fannedOut).toBe(busy);
      expect(r1!.claimed + r2!.claimed).toBe(quiet);
      await t.app.settle();
      const counts = await Promise.all(Array.from({ length: 80 }, (_, i) => getItem({ pk: `EX#f${i}#RUNS`, sk: 'RUNS' })));
      expect(counts.map((c) => c?.runCount)).toEqual(Array(80).fill(1));
      expect((await t.app.tick(new Date('2033-01-01T00:01:00.000Z'))).found).toBe(0);
    } finally {
      await t.app.updateEnvironment({ DUE_TICK_INLINE: '200', DUE_CLAIM_JOB_MAX: '2000' });
    }
  });
});
