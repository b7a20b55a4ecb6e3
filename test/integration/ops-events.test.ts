/**
 * `npm run ops -- listen` and `npm run ops -- trigger` (DESIGN 8.2, 9.5), end to end on the
 * local stack: every trigger causes a real event of its type in the sandbox through the
 * simulated bank (seen through the events API of the participant it is addressed to); every
 * event type the service emits has a trigger; listen polls the events API and forwards each
 * new event, signed with its secret under both header sets (the SDK's verifyWebhook and the
 * standardwebhooks library both accept what arrives), and keeps that secret in .local/
 * across runs unless --new-secret.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../functions/events/types';
import { sleep } from '../../functions/platform/retry';
import { commands, listenSecret, startListener, trigger, TRIGGERS, type Listener } from '../../ops/commands/events';
import type { Target } from '../../ops/api';
import { verifyWebhook } from '../../sdk/src/index';
import { startReceiver, type Receiver } from '../../local/receiver';
import { startTestApp, type TestApp } from '../support/app';
import { merchantWithTrust, type Party } from '../support/flows';

const ROOT = resolve(import.meta.dirname, '../..');

let t: TestApp;
let rx: Receiver;
let bank: Party;
let merchantKey: string;
let premium: { merchant: Party; provider: Party };
const listeners: Listener[] = [];
beforeAll(async () => {
  // The simulated bank answers at once; the local tick runs by itself, as under npm start.
  t = await startTestApp({ SANDBOX_BANK_DELAY_SECONDS: '0' }, { tickMs: 200 });
  rx = await startReceiver();
  bank = await t.participant('bank', { simulated: true });
  merchantKey = (await t.participant('merchant')).apiKey;
  const p = await merchantWithTrust(t, { trustLevel: 'premium' });
  premium = { merchant: p.merchant, provider: p.provider! };
  const ep = await t.call('POST', '/v1/webhooks/endpoints', { key: premium.merchant.apiKey, body: { url: rx.endpointUrl('premium').url } });
  expect(ep.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await Promise.all(listeners.map((l) => l.stop()));
  await rx?.close();
  await t?.stop();
});

const target = (key: string, entity?: string): Target => ({ api: t.url, key, ...(entity ? { entity } : {}) });

/** Ids of the events of `type` the key's participant sees (newest first, first page). */
async function eventIds(key: string, type: string): Promise<string[]> {
  const r = await t.call<any>('GET', '/v1/events', { key, query: { type, limit: '100' } });
  expect(r.status).toBe(200);
  return (r.body.data.events as { id: string }[]).map((e) => e.id);
}

describe('ops trigger', () => {
  it('covers every event type the service emits (the disputes step adds its two here)', () => {
    expect(EVENT_TYPES.filter((type) => !TRIGGERS[type])).toEqual([]);
    expect(Object.keys(TRIGGERS).filter((type) => !(EVENT_TYPES as readonly string[]).includes(type))).toEqual([]);
  });

  it('the README names every trigger', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const operate = readme.slice(readme.indexOf('## Operate'), readme.indexOf('\n## ', readme.indexOf('## Operate') + 1));
    for (const type of Object.keys(TRIGGERS)) expect(operate, type).toContain(`\`${type}\``);
  });

  // One case per trigger: the event arrives to whom it is addressed (the simulated bank, or the merchant).
  it.each(Object.keys(TRIGGERS))(
    '%s: a new event of that type, to whom it is addressed',
    async (type) => {
      const tr = TRIGGERS[type]!;
      const observer = tr.to === 'bank' ? bank.apiKey : premium.merchant.apiKey;
      const before = new Set(await eventIds(observer, type));
      const by = tr.needs === 'provider' ? target(premium.provider.apiKey, premium.merchant.id) : target(premium.merchant.apiKey);
      expect(await trigger(type, by)).toMatch(new RegExp(`^${type.replace('.', '\\.')}: `));
      const deadline = Date.now() + 30_000;
      let fresh: string[] = [];
      while ((fresh = (await eventIds(observer, type)).filter((id) => !before.has(id))).length === 0) {
        if (Date.now() > deadline) throw new Error(`no new ${type} for ${tr.to}`);
        await sleep(200);
      }
      expect(fresh.length).toBeGreaterThanOrEqual(1);
    },
    90_000,
  );

  it('a provider acts for its merchant with --entity: the schedule is that merchant’s', async () => {
    const before = new Set(await eventIds(premium.merchant.apiKey, 'schedule.created'));
    const out = await trigger('schedule.created', target(premium.provider.apiKey, premium.merchant.id));
    const id = /schedule (sch_\S+)/.exec(out)![1]!;
    const s = await t.call<any>('GET', `/v1/recurring/${id}`, { key: premium.merchant.apiKey });
    expect(s.status).toBe(200);
    expect(s.body.data).toMatchObject({ scheduleId: id, status: 'active' });
    expect((await eventIds(premium.merchant.apiKey, 'schedule.created')).filter((e) => !before.has(e))).toHaveLength(1);
  }, 60_000);

  it('refusals say why: unknown type (with the list), live key, schedules of an untrusted merchant, trust without a provider, test without an endpoint', async () => {
    await expect(trigger('schedule.exploded', target(merchantKey))).rejects.toThrow(
      `cannot trigger "schedule.exploded"; supported: ${Object.keys(TRIGGERS).join(', ')}`,
    );
    await expect(trigger('billing.response', target('sk_live_abc'))).rejects.toThrow('trigger needs a sandbox merchant key');
    await expect(trigger('schedule.created', target(merchantKey))).rejects.toThrow(
      'schedule.created needs a merchant its provider trusts at premium: the provider sets it with PATCH /v1/provider/merchant/trust',
    );
    await expect(trigger('merchant.trust.updated', target(merchantKey))).rejects.toThrow(
      'merchant.trust.updated needs a sandbox provider key and --entity <merchant id>',
    );
    await expect(trigger('webhook.test', target(merchantKey))).rejects.toThrow(
      'webhook.test goes to one of your webhook endpoints: add one first (POST /v1/webhooks/endpoints)',
    );
    // The CLI's own parsing: `npm run ops -- trigger <type> --key <key> [--entity <id>] --api <url>`.
    await expect(commands.trigger(['schedule.exploded', '--key', merchantKey, '--api', t.url])).rejects.toThrow(
      'cannot trigger "schedule.exploded"',
    );
    await expect(commands.trigger(['--key', merchantKey])).rejects.toThrow(/^usage: trigger <event type>/);
    await expect(commands.listen(['--key', merchantKey])).rejects.toThrow(/^usage: listen --forward-to/);
  }, 60_000);
});

describe('ops listen', () => {
  it('forwards a triggered billing.response once, signed with its secret under both schemes; history is not forwarded', async () => {
    // History first: an event that exists before listen starts.
    await trigger('billing.intent.response', target(merchantKey));
    expect(await eventIds(merchantKey, 'billing.intent.response')).not.toEqual([]);
    const hook = rx.endpointUrl('listen');
    const printed: string[] = [];
    const secret = listenSecret(join(mkdtempSync(join(tmpdir(), 'ops-listen-')), 'listen-secret')).secret;
    const l = await startListener({
      api: t.url,
      key: merchantKey,
      forwardTo: hook.url,
      secret,
      intervalMs: 200,
      print: (s) => printed.push(s),
    });
    listeners.push(l);
    expect(l.secret).toBe(secret);
    expect(l.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    expect(printed.join('\n')).toContain(l.secret);

    expect(await trigger('billing.response', target(merchantKey))).toMatch(/^billing\.response: payment .+ succeeded$/);
    await rx.waitFor(hook.path, (reqs) => reqs.some((r) => JSON.parse(r.body).type === 'billing.response'), 20_000);
    const got = rx.received(hook.path).filter((r) => JSON.parse(r.body).type === 'billing.response');
    expect(got).toHaveLength(1);
    const r = got[0]!;
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
  }, 60_000);

  it('keeps its signing secret in .local/ across runs (readable by the user only); --new-secret replaces it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ops-listen-data-'));
    /** `npm run ops -- listen ...` as a process; resolves with the secret it printed, after Ctrl-C. */
    const run = (extra: string[] = []) =>
      new Promise<string>((done, fail) => {
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            'ops/cli.ts',
            'listen',
            '--forward-to',
            rx.endpointUrl('cli').url,
            '--key',
            merchantKey,
            '--api',
            t.url,
            ...extra,
          ],
          { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let secret: string | undefined;
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          fail(new Error(`listen printed no secret:\n${out}`));
        }, 60_000);
        child.stdout.on('data', (d) => {
          out += d;
          secret ??= /Signing secret .*: (whsec_\S+)/.exec(out)?.[1];
          if (secret && /\(.*secret.*kept in /.test(out)) child.kill('SIGINT');
        });
        child.stderr.on('data', (d) => (out += d));
        child.on('close', () => {
          clearTimeout(timer);
          if (secret) done(secret);
          else fail(new Error(`listen printed no secret:\n${out}`));
        });
      });
    try {
      const first = await run();
      const file = join(dataDir, 'listen-secret');
      expect(readFileSync(file, 'utf8').trim()).toBe(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(await run()).toBe(first);
      const renewed = await run(['--new-secret']);
      expect(renewed).not.toBe(first);
      expect(renewed).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
      expect(readFileSync(file, 'utf8').trim()).toBe(renewed);
      expect(await run()).toBe(renewed);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('a kept file that holds no secret is refused with the way out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ops-listen-bad-'));
    try {
      const file = join(dir, 'listen-secret');
      const { secret } = listenSecret(file);
      expect(listenSecret(file)).toEqual({ secret, created: false });
      rmSync(file);
      writeFileSync(file, 'not a secret\n');
      expect(() => listenSecret(file)).toThrow(`${file} does not hold a signing secret (whsec_...): run listen with --new-secret`);
      expect(listenSecret(file, true).created).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
