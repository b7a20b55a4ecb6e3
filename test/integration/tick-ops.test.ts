import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { dueAttributes, registerDueKind, clearDueUpdate } from '../../functions/platform/due';
import { getItem, putItem, transact } from '../../functions/platform/table';
import { readLocalTickState } from '../../local/paths';
import { commands } from '../../ops/commands/tick';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
const ran: string[] = [];

beforeAll(async () => {
  process.env.LOCAL_DATA_DIR = mkdtempSync(join(tmpdir(), 'idpay-tick-'));
  registerDueKind('example-ops', async (job) => {
    ran.push(job.id);
    await transact([clearDueUpdate(job.key, job.leasedSk)]);
  });
  // The real local timer (every 100 ms), paused through the ops command.
  t = await startTestApp({}, { tickMs: 100, tickPaused: () => readLocalTickState() === 'DISABLED' });
});
afterAll(async () => t?.stop());

describe('npm run ops -- tick:pause | tick:resume (local stack)', () => {
  it('stops and restarts the local tick', async () => {
    await commands['tick:pause']([]);
    expect(readLocalTickState()).toBe('DISABLED');
    const past = new Date(Date.now() - 1000).toISOString();
    await putItem({ pk: 'EXO#1', sk: 'EX', ...dueAttributes('example-ops', 'o1', past) });
    await sleep(600);
    expect(ran).toEqual([]);
    expect((await getItem({ pk: 'EXO#1', sk: 'EX' }))?.dueSk).toBeDefined();

    await commands['tick:resume']([]);
    expect(readLocalTickState()).toBe('ENABLED');
    // The tick, its claim job and the jobs worker on a loaded machine: wait as long as they need.
    const deadline = Date.now() + 60_000;
    while (!ran.includes('o1') && Date.now() < deadline) await sleep(50);
    expect(ran).toEqual(['o1']);
  });
});
