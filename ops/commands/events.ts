/**
 * Events on a laptop:
 *
 *   npm run ops -- listen --forward-to <url> --key <key> [--api <url>] [--interval <ms>] [--new-secret]
 *     Polls GET /v1/events with the key and forwards each new event, once, oldest first, to
 *     the URL, signed like a real delivery: the X-Webhook-* headers and Standard Webhooks'
 *     (webhook-id, -timestamp, -signature). Events already there when it starts are not
 *     forwarded. The signing secret is kept in .local/listen-secret (LOCAL_DATA_DIR) and
 *     reused by every run, so a receiver configured once keeps verifying; `--new-secret`
 *     replaces it. Stops on Ctrl-C.
 *
 *   npm run ops -- trigger <event type> --key <sandbox key> [--entity <merchant id>] [--api <url>]
 *     Causes a real event of that type in the sandbox, through the simulated bank (the
 *     operator creates one with {"type": "bank", "simulated": true}): ops/triggers.ts.
 *
 * `--api` defaults to the running `npm start` (its .local/endpoints.json), else
 * http://127.0.0.1:3000.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { newSecret, webhookHeaders } from '../../functions/webhooks/signing';
import { localPaths } from '../../local/paths';
import { apiBase, call, must, type ApiEvent, type Target } from '../api';
import { flags } from '../common';
import { TRIGGERS, trigger } from '../triggers';

export { TRIGGERS, trigger };

// ---------------------------------------------------------------------------------------
// listen

export interface ListenOptions {
  api: string;
  key: string;
  forwardTo: string;
  /** The signing secret (listenSecret()); a new one when absent. */
  secret?: string;
  intervalMs?: number;
  /** Where lines go (default stdout). */
  print?: (line: string) => void;
}

export interface Listener {
  /** The signing secret of the forwarded requests. */
  secret: string;
  /** Forwarded so far (event ids, in order). */
  forwarded: string[];
  stop(): Promise<void>;
}

/** Where `listen` keeps its signing secret. */
export const listenSecretFile = () => join(localPaths().root, 'listen-secret');

const SECRET_SHAPE = /^whsec_[A-Za-z0-9+/=]{20,200}$/;

/** The kept signing secret, or a new one (kept, readable by this user only) when there is none or `renew`. */
export function listenSecret(file = listenSecretFile(), renew = false): { secret: string; created: boolean } {
  if (!renew && existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (!SECRET_SHAPE.test(kept)) throw new Error(`${file} does not hold a signing secret (whsec_...): run listen with --new-secret`);
    return { secret: kept, created: false };
  }
  const secret = newSecret();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // also when the file was there
  return { secret, created: true };
}

/** Events newer than the known ones, oldest first (follows pages until a known one). */
async function newEvents(t: Target, known: Set<string>): Promise<ApiEvent[]> {
  const fresh: ApiEvent[] = [];
  let startingAfter: string | undefined;
  for (let page = 0; page < 20; page++) {
    const q = new URLSearchParams({ limit: '100', ...(startingAfter ? { startingAfter } : {}) });
    const data = must(await call(t, 'GET', `/v1/events?${q}`), 'GET /v1/events').data as { events: ApiEvent[]; hasMore: boolean };
    for (const e of data.events) {
      if (known.has(e.id)) return fresh.reverse();
      fresh.push(e);
    }
    if (!data.hasMore || data.events.length === 0) break;
    startingAfter = data.events.at(-1)!.id;
  }
  return fresh.reverse();
}

export async function startListener(o: ListenOptions): Promise<Listener> {
  const print = o.print ?? ((l: string) => console.log(l));
  const target: Target = { api: o.api, key: o.key };
  const secret = o.secret ?? newSecret();
  const known = new Set<string>();
  // What is already there is history: only what happens from now on is forwarded.
  for (const e of await newEvents(target, known)) known.add(e.id);
  const forwarded: string[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const poll = async () => {
    for (const e of await newEvents(target, known)) {
      known.add(e.id);
      const body = JSON.stringify({ id: e.id, type: e.type, createdAt: e.createdAt, data: e.data });
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'idpay-ops-listen/1.0',
        ...webhookHeaders(e.id, body, { current: secret }, Date.now()),
      };
      let status = 'error';
      try {
        status = String((await fetch(o.forwardTo, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) })).status);
      } catch (err) {
        status = (err as Error).message;
      }
      forwarded.push(e.id);
      print(`${new Date().toISOString()}  ${e.type.padEnd(24)} ${e.id}  -> ${status}`);
    }
  };
  const loop = () => {
    if (stopped) return;
    running = poll()
      .catch((err) => print(`poll failed: ${(err as Error).message}`))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, o.intervalMs ?? 2000);
      });
  };
  print(`Forwarding new events to ${o.forwardTo}`);
  print(`Signing secret (verify with @idpay/sdk verifyWebhook or standardwebhooks): ${secret}`);
  loop();
  return {
    secret,
    forwarded,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

// ---------------------------------------------------------------------------------------
// commands

const triggerUsage = () =>
  'usage: trigger <event type> --key <sandbox merchant key> [--entity <merchant id> with a provider key] [--api <url>]; types:\n' +
  Object.entries(TRIGGERS)
    .map(
      ([k, v]) =>
        `  ${k}: ${v.how}${v.needs === 'premium' ? ' [merchant trusted premium]' : v.needs === 'provider' ? ' [provider key, --entity]' : ''}`,
    )
    .join('\n');

export const commands = {
  listen: async (args: string[]) => {
    const f = flags(args);
    if (typeof f['forward-to'] !== 'string' || typeof f.key !== 'string')
      throw new Error('usage: listen --forward-to <url> --key <key> [--api <url>] [--interval <ms>] [--new-secret]');
    const file = listenSecretFile();
    const { secret, created } = listenSecret(file, f['new-secret'] === true);
    const l = await startListener({
      api: apiBase(f.api),
      key: f.key,
      forwardTo: f['forward-to'],
      secret,
      intervalMs: typeof f.interval === 'string' ? Number(f.interval) : undefined,
    });
    console.log(created ? `(a new secret, kept in ${file})` : `(the secret kept in ${file}; --new-secret replaces it)`);
    await new Promise<void>((resolve) => process.once('SIGINT', () => void l.stop().then(resolve)));
  },
  trigger: async (args: string[]) => {
    const f = flags(args);
    const type = args[0] && !args[0].startsWith('--') ? args[0] : undefined;
    if (!type || typeof f.key !== 'string') throw new Error(triggerUsage());
    const target: Target = { api: apiBase(f.api), key: f.key, ...(typeof f.entity === 'string' ? { entity: f.entity } : {}) };
    console.log(await trigger(type, target));
  },
};
