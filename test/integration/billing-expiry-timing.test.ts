/**
 * DESIGN 6.9 "Expiry timing": with the local runtime's own tick running (every LOCAL_TICK_MS
 * = 1 s), an expired approval's `billing.response` reaches the merchant within one tick
 * period plus 1 s of `expiresAt`. (Own file: one local app per test process.)
 */
import { expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { agreement, bill, events } from '../support/flows';
import type { Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { APPROVAL_WINDOW_SECONDS: '2', LOCAL_TICK_MS: '1000' },
  { tickMs: 1000 },
);

it("the expired approval's billing.response reaches the merchant within one tick period + 1 s of expiresAt", async () => {
  for (let round = 0; round < 3; round++) {
    const a = await agreement(t, { decision: 'approve_once', receiver: rx });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 12);
    expect(r.status).toBe(201);
    const el = r.body[0];
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference, 10_000);
    expect(res!.data.status).toBe('expired');
    const received = rx.received(a.hooks!.merchant.path).find((q) => JSON.parse(q.body).id === res!.id)!;
    const lateness = received.receivedAt - Date.parse(el.expiresAt);
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThanOrEqual(1000 + 1000);
  }
});
