/**
 * `npm run ops -- listen` and `npm run ops -- trigger` (DESIGN 8.2), end to end on the local
 * stack: trigger causes a real event in the sandbox through the simulated bank; listen polls
 * the events API and forwards it, signed with the secret it printed, with both header sets;
 * the SDK's verifyWebhook and the standardwebhooks library both accept what arrives.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, startListener, trigger, TRIGGERS, type Listener } from '../../ops/commands/events';
import { verifyWebhook } from '../../sdk/src/index';
import { startReceiver, type Receiver } from '../../local/receiver';
import { startTestApp, type TestApp } from '../support/app';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
let merchantKey: string;
const listeners: Listener[] = [];
beforeAll(async () => {
  // The simulated bank answers at once; the local tick runs by itself, as under npm start.
  t = await startTestApp({ SANDBOX_BANK_DELAY_SECONDS: '0' }, { tickMs: 200 });
  rx = await startReceiver();
  await t.participant('bank', { simulated: true });
  merchantKey = (await t.participant('merchant')).apiKey;
});
afterAll(async () => {
  await Promise.all(listeners.map((l) => l.stop()));
  await rx?.close();
  await t?.stop();
});

describe('ops listen + trigger', () => {
  it('forwards a triggered billing.response once, signed with the printed secret under both schemes; history is not forwarded', async () => {
    // History first: an event that exists before listen starts.
    await trigger('billing.intent.response', t.url, merchantKey);
    const deadline = Date.now() + 20_000;
    const answered = async () =>
      ((await t.call('GET', '/v1/events', { key: merchantKey, query: { type: 'billing.intent.response' } })).body.data.events as unknown[])
        .length > 0;
    while (!(await answered())) {
      if (Date.now() > deadline) throw new Error('the simulated bank never answered the intent');
      await sleep(100);
    }
    const hook = rx.endpointUrl('listen');
    const printed: string[] = [];
    const l = await startListener({ api: t.url, key: merchantKey, forwardTo: hook.url, intervalMs: 200, print: (s) => printed.push(s) });
    listeners.push(l);
    expect(l.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    expect(printed.join('\n')).toContain(l.secret);

    expect(await trigger('billing.response', t.url, merchantKey)).toMatch(/^payment .+ succeeded$/);
    const [req] = await rx.waitFor(hook.path, (reqs) => reqs.some((r) => JSON.parse(r.body).type === 'billing.response'), 20_000);
    const got = rx.received(hook.path).filter((r) => JSON.parse(r.body).type === 'billing.response');
    expect(got).toHaveLength(1);
    const r = got[0]!;
    expect(req).toBeDefined();
    const event = JSON.parse(r.body);
    expect(event.data).toMatchObject({ status: 'succeeded', amount: 100 });
    expect(r.headers['x-webhook-id']).toBe(event.id);
    expect(r.headers['webhook-id']).toBe(event.id);
    expect(verifyWebhook(r.body, r.headers, l.secret)).toMatchObject({ id: event.id, type: 'billing.response' });
    expect(new Webhook(l.secret).verify(r.body, r.headers)).toMatchObject({ id: event.id });
    expect(() => verifyWebhook(r.body, r.headers, `whsec_${'x'.repeat(40)}`)).toThrow();
    // The intent's answer came before listen started: never forwarded.
    const types = rx.received(hook.path).map((x) => JSON.parse(x.body).type);
    expect(types).not.toContain('billing.intent.response');
    // Nothing twice after more polls.
    await sleep(600);
    expect(l.forwarded.filter((id) => id === event.id)).toHaveLength(1);
  });

  it('trigger settlement.completed and refund.updated cause those events; an unknown type is refused with the list', async () => {
    const hook = rx.endpointUrl('listen-2');
    const l = await startListener({ api: t.url, key: merchantKey, forwardTo: hook.url, intervalMs: 200, print: () => undefined });
    listeners.push(l);
    await trigger('refund.updated', t.url, merchantKey);
    await trigger('settlement.completed', t.url, merchantKey);
    await rx.waitFor(
      hook.path,
      (reqs) => {
        const types = reqs.map((x) => JSON.parse(x.body).type);
        return types.includes('refund.updated') && types.includes('settlement.completed');
      },
      30_000,
    );
    await expect(trigger('schedule.created', t.url, merchantKey)).rejects.toThrow(
      `cannot trigger "schedule.created"; supported: ${Object.keys(TRIGGERS).join(', ')}`,
    );
    await expect(trigger('billing.response', t.url, 'sk_live_abc')).rejects.toThrow('trigger needs a sandbox merchant key');
    // The CLI's own parsing: `npm run ops -- trigger <type> --key <key> --api <url>`.
    await expect(commands.trigger(['schedule.created', '--key', merchantKey, '--api', t.url])).rejects.toThrow(
      'cannot trigger "schedule.created"',
    );
    await expect(commands.trigger(['--key', merchantKey])).rejects.toThrow(/^usage: trigger <event type>/);
    await expect(commands.listen(['--key', merchantKey])).rejects.toThrow(/^usage: listen --forward-to/);
  });
});
