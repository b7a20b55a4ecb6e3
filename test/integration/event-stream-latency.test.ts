/**
 * DESIGN 6.9's local latency of the event pipeline: a business event reaches the receiver within
 * 1 s of its commit, through DynamoDB Local's stream, the consumer and the delivery worker. Timed,
 * so it runs in the `timed` project (after every other file, alone); the pipeline's other
 * behaviours are in event-stream.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { commit } from '../../functions/events/outbox';
import type { Receiver } from '../../local/receiver';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { billingResponse } from '../support/event-data';
import { webhook } from '../support/flows';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { WEBHOOK_BACKOFF_BASE_SECONDS: '1' },
  { tickMs: 500 },
);

/** Artifacts mode runs the consumer and the worker from their bundles, each in its own thread. */
const inProcess = process.env.LOCAL_ARTIFACTS !== '1';

describe('the stream consumer', () => {
  it('delivers within 1 s of the commit locally (DESIGN 6.9)', async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'stream-latency' });
    await t.app.settle();
    if (!inProcess) {
      // Artifacts mode starts a bundle's worker thread on demand and stops it after 60 s idle
      // (a Lambda cold start): one delivery first, untimed, so the ten below time the pipeline.
      const [warm] = await commit([], [{ type: 'billing.response', to: m.id, data: billingResponse({ reference: 'LAT-warm' }) }]);
      await rx.waitFor(hook.path, (r) => r.some((q) => q.headers['x-webhook-id'] === warm!.id));
      await t.app.settle();
    }
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const [ev] = await commit([], [{ type: 'billing.response', to: m.id, data: billingResponse({ reference: `LAT-${i}` }) }]);
      const [req] = (await rx.waitFor(hook.path, (r) => r.some((q) => q.headers['x-webhook-id'] === ev!.id))).filter(
        (q) => q.headers['x-webhook-id'] === ev!.id,
      );
      latencies.push(req!.receivedAt - Date.parse(ev!.createdAt));
    }
    console.log(`stream path: commit to receiver ${latencies.join(', ')} ms`);
    expect(Math.max(...latencies), latencies.join(',')).toBeLessThan(1000);
  });
});
