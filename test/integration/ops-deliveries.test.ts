/**
 * `npm run ops -- deliveries:list` pages through every matching delivery, newest first, and says
 * how many are left (issue: `--status failed` printed 50 of 146 failed deliveries, in storage
 * order, with no sign of more). From the table (all participants, or `--owner`) and through
 * `GET /v1/webhooks/deliveries` with a participant's key (cursor paging). Local stack: the
 * receiver answers 500 and a delivery fails after one attempt. Also the slow lane's worker (in
 * artifacts mode this file is what runs `webhooks-slow` from its bundle: the parity check).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DELIVERY_STATUSES, deliveryKey, type DeliveryItem } from '../../functions/webhooks/delivery-store';
import { endpointKey, type EndpointItem } from '../../functions/webhooks/endpoint-store';
import { FAST_LANE_BUDGET_MS } from '../../functions/webhooks/lanes';
import { getItem } from '../../functions/platform/table';
import { mapLimit } from '../../functions/platform/retry';
import { deliveriesList, listDeliveries } from '../../ops/commands/dlq';
import { startReceiver, type Receiver } from '../../local/receiver';
import { startTestApp, type TestApp } from '../support/app';
import { scanPrefix } from '../support/billing-table';
import { until } from '../support/money-fixtures';
import { webhook, type Party } from '../support/flows';

let t: TestApp;
let rx: Receiver;
let busy: Party;
let quiet: Party;
let table: string;
const FAILED_BUSY = 66;
const FAILED_QUIET = 3;

/** `count` test events to a new endpoint of `who` that answers `status`; their delivery ids. */
async function testEvents(who: Party, count: number, status: number): Promise<string[]> {
  const hook = await webhook(t, rx, who, { label: `s${status}` });
  rx.respond(hook.path, { status });
  return mapLimit(
    Array.from({ length: count }, (_, i) => i),
    4,
    async () => {
      const r = await t.call('POST', `/v1/webhooks/endpoints/${hook.endpointId}/test`, { key: who.apiKey });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      return r.body.data.deliveryId as string;
    },
  );
}

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_MAX_ATTEMPTS: '1' });
  rx = await startReceiver();
  table = t.app.env.TABLE_NAME!;
  busy = await t.participant('merchant');
  quiet = await t.participant('merchant');
  const ids = [
    ...(await testEvents(busy, FAILED_BUSY, 500)),
    ...(await testEvents(quiet, FAILED_QUIET, 500)),
    ...(await testEvents(quiet, 2, 200)),
  ];
  await until(async () => {
    const done = (await scanPrefix<DeliveryItem>('WHDL#')).filter((d) => ids.includes(d.id) && d.status !== 'pending');
    return done.length === ids.length;
  }, 120_000);
}, 240_000);
afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

const newestFirst = (rows: { createdAt: string; id: string }[]) =>
  rows.every(
    (r, i) => i === 0 || rows[i - 1]!.createdAt > r.createdAt || (rows[i - 1]!.createdAt === r.createdAt && rows[i - 1]!.id > r.id),
  );

describe('ops deliveries:list', () => {
  it('from the table: a page of 50 failed deliveries newest first, how many are left, and the command for the next page; the pages cover every one once', async () => {
    const all = FAILED_BUSY + FAILED_QUIET;
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((l: unknown) => void lines.push(String(l)));
    let first: Awaited<ReturnType<typeof deliveriesList>>;
    try {
      first = await deliveriesList(['--status', 'failed', '--table', table]);
    } finally {
      log.mockRestore();
    }
    expect(first).toHaveLength(50);
    expect(first.every((r) => r.status === 'failed')).toBe(true);
    expect(newestFirst(first)).toBe(true);
    const summary = lines.at(-1)!;
    expect(summary).toBe(
      `50 of ${all} failed deliveries (newest first); ${all - 50} more: npm run ops -- deliveries:list --status failed --table ${table} --starting-after ${first.at(-1)!.id} (or --all)`,
    );

    const next = await listDeliveries(['--status', 'failed', '--table', table, '--starting-after', first.at(-1)!.id]);
    expect(next).toMatchObject({ total: all, more: 0 });
    expect(next.nextStartingAfter).toBeUndefined();
    expect(next.rows).toHaveLength(all - 50);
    const both = [...first, ...next.rows];
    expect(newestFirst(both)).toBe(true);
    expect(new Set(both.map((r) => r.id)).size).toBe(all);

    const everything = await listDeliveries(['--status', 'failed', '--table', table, '--all']);
    expect(everything.rows.map((r) => r.id)).toEqual(both.map((r) => r.id));
    expect(everything).toMatchObject({ total: all, more: 0 });

    const own = await listDeliveries(['--status', 'failed', '--owner', quiet.id, '--table', table]);
    expect(own).toMatchObject({ total: FAILED_QUIET, more: 0 });
    expect(own.rows.every((r) => r.ownerId === quiet.id)).toBe(true);
  });

  it('through the API with a key (GET /v1/webhooks/deliveries, cursor paging): the same deliveries of that participant, newest first', async () => {
    const fromTable = await listDeliveries(['--status', 'failed', '--owner', busy.id, '--table', table, '--all']);
    const page = await listDeliveries(['--status', 'failed', '--key', busy.apiKey, '--api', t.url, '--limit', '20']);
    expect(page).toMatchObject({ total: FAILED_BUSY, more: FAILED_BUSY - 20, nextStartingAfter: page.rows.at(-1)!.id });
    expect(page.rows.map((r) => r.id)).toEqual(fromTable.rows.slice(0, 20).map((r) => r.id));
    const rest = await listDeliveries([
      '--status',
      'failed',
      '--key',
      busy.apiKey,
      '--api',
      t.url,
      '--all',
      '--starting-after',
      page.nextStartingAfter!,
    ]);
    expect(rest.rows.map((r) => r.id)).toEqual(fromTable.rows.slice(20).map((r) => r.id));
  });

  it('bad flags are refused before any read', async () => {
    await expect(listDeliveries(['--status', 'lost', '--table', table])).rejects.toThrow(
      `--status must be one of ${DELIVERY_STATUSES.join(', ')}`,
    );
    await expect(listDeliveries(['--limit', '0', '--table', table])).rejects.toThrow('--limit must be a positive whole number');
    await expect(listDeliveries(['--status', 'failed', '--table', table, '--starting-after', 'dlv_nope'])).rejects.toThrow(
      '--starting-after dlv_nope: no such delivery among those listed',
    );
  });
});

describe('the slow lane (DESIGN 8.1)', () => {
  it("an endpoint that answers after the fast lane's budget is marked slow; its next delivery goes through the slow lane and arrives, one attempt each", async () => {
    const who = await t.participant('merchant');
    const hook = await webhook(t, rx, who, { label: 'slow' });
    rx.respond(hook.path, { status: 200, delayMs: FAST_LANE_BUDGET_MS + 1_000 });
    const send = async () => {
      const r = await t.call('POST', `/v1/webhooks/endpoints/${hook.endpointId}/test`, { key: who.apiKey });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      return r.body.data.deliveryId as string;
    };
    const delivered = (id: string) => until(async () => (await getItem<DeliveryItem>(deliveryKey(id)))?.status === 'delivered', 60_000);
    const first = await send();
    await delivered(first);
    const ep = await getItem<EndpointItem>(endpointKey(who.id, hook.endpointId));
    expect(ep!.slowUntil).toBeGreaterThan(Date.now());
    const second = await send();
    await delivered(second);
    for (const id of [first, second])
      expect(await getItem<DeliveryItem>(deliveryKey(id))).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(rx.received(hook.path)).toHaveLength(2);
  });
});
