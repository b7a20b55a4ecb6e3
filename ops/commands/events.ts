/**
 * Events on a laptop (DESIGN 8.2):
 *
 *   npm run ops -- listen --forward-to <url> --key <key> [--api <url>] [--interval <ms>]
 *     Polls GET /v1/events with the key and forwards each new event, once, oldest first, to
 *     the URL, signed like a real delivery with a secret printed at start: the headers of
 *     DESIGN 6.6 (X-Webhook-*) and Standard Webhooks' (webhook-id, -timestamp, -signature).
 *     Events already there when it starts are not forwarded. Stops on Ctrl-C.
 *
 *   npm run ops -- trigger <event type> --key <sandbox merchant key> [--api <url>]
 *     Causes a real event of that type in the sandbox, through the simulated bank (the
 *     operator creates one with {"type": "bank", "simulated": true}). Types: see TRIGGERS.
 *
 * `--api` defaults to the running `npm start` (its .local/endpoints.json), else
 * http://127.0.0.1:3000.
 */
import { newSecret, webhookHeaders } from '../../functions/webhooks/signing';
import { flags, localStack } from '../common';

interface ApiEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

const apiBase = (api: string | true | undefined) =>
  (typeof api === 'string' ? api : (localStack()?.url ?? 'http://127.0.0.1:3000')).replace(/\/$/, '');

async function call(api: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${api}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, body: parsed };
}

function must(r: { status: number; body: any }, what: string): any {
  if (r.status >= 300)
    throw new Error(`${what}: ${r.status} ${typeof r.body === 'object' ? (r.body?.message ?? JSON.stringify(r.body)) : r.body}`);
  return r.body;
}

// ---------------------------------------------------------------------------------------
// listen

export interface ListenOptions {
  api: string;
  key: string;
  forwardTo: string;
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

/** Events newer than `seen`'s newest, oldest first (follows pages until a known one). */
async function newEvents(o: ListenOptions, known: Set<string>): Promise<ApiEvent[]> {
  const fresh: ApiEvent[] = [];
  let startingAfter: string | undefined;
  for (let page = 0; page < 20; page++) {
    const q = new URLSearchParams({ limit: '100', ...(startingAfter ? { startingAfter } : {}) });
    const data = must(await call(o.api, o.key, 'GET', `/v1/events?${q}`), 'GET /v1/events').data as {
      events: ApiEvent[];
      hasMore: boolean;
    };
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
  const secret = newSecret();
  const known = new Set<string>();
  // What is already there is history: only what happens from now on is forwarded.
  for (const e of await newEvents(o, known)) known.add(e.id);
  const forwarded: string[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const poll = async () => {
    for (const e of await newEvents(o, known)) {
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
// trigger

const MAGIC_APPROVER = 'approve.once@sandbox.idpay.test';

/** A simulated bank's lookup phrase for the magic customer that approves everything. */
async function approverPhrase(api: string, key: string): Promise<string> {
  const banks = must(
    await call(api, key, 'GET', `/v1/customer/banks?email=${encodeURIComponent(MAGIC_APPROVER)}`),
    'GET /v1/customer/banks',
  ).data?.banks as { lookupPhrase: string }[] | undefined;
  if (!banks?.length)
    throw new Error('No simulated bank in this sandbox: the operator creates one with {"type": "bank", "simulated": true}');
  return banks[0]!.lookupPhrase;
}

/** A one-time payment the simulated customer approves; resolves once it succeeded. */
async function paid(api: string, key: string): Promise<string> {
  const lookup = await approverPhrase(api, key);
  const r = must(
    await call(api, key, 'POST', '/v1/customer/pay', { lookupPhrases: [lookup], amount: 100, currency: 'NGN', description: 'ops trigger' }),
    'POST /v1/customer/pay',
  );
  const reference = (Array.isArray(r) ? r[0] : r.data?.[0])?.reference as string | undefined;
  if (!reference) throw new Error(`POST /v1/customer/pay: ${JSON.stringify(r)}`);
  for (let i = 0; i < 120; i++) {
    const t = await call(api, key, 'GET', `/v1/transaction-details?reference=${encodeURIComponent(reference)}`);
    if (t.body?.data?.status === 'succeeded') return reference;
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error(`payment ${reference} did not succeed within 60 s (is the tick running?)`);
}

/** What each supported event type takes; the event reaches the merchant (and its listeners). */
export const TRIGGERS: Record<string, { how: string; run: (api: string, key: string) => Promise<string> }> = {
  'billing.intent.response': {
    how: 'a billing intent to the magic customer approve.once; the simulated bank answers it',
    run: async (api, key) => {
      const lookup = await approverPhrase(api, key);
      must(
        await call(api, key, 'POST', '/v1/billing/intent', { lookupPhrases: [lookup], currency: 'NGN', description: 'ops trigger' }),
        'POST /v1/billing/intent',
      );
      return 'billing intent sent';
    },
  },
  'billing.response': {
    how: 'a one-time payment of NGN 100 the simulated customer approves',
    run: async (api, key) => `payment ${await paid(api, key)} succeeded`,
  },
  'refund.updated': {
    how: 'a payment, a refund of NGN 50, and the sandbox helper that completes it',
    run: async (api, key) => {
      const reference = await paid(api, key);
      const refund = must(
        await call(api, key, 'POST', '/v1/refunds/initiate', { reference, amount: 50, reason: 'ops trigger' }),
        'POST /v1/refunds/initiate',
      );
      const id = refund.data.refundId as string;
      must(await call(api, key, 'POST', `/v1/sandbox/refunds/${id}/complete`, {}), 'POST /v1/sandbox/refunds/{id}/complete');
      return `refund ${id} completed`;
    },
  },
  'settlement.completed': {
    how: 'a payment, then the sandbox helper that settles all funds now',
    run: async (api, key) => {
      await paid(api, key);
      must(await call(api, key, 'POST', '/v1/sandbox/settlements/run', {}), 'POST /v1/sandbox/settlements/run');
      return 'funds settled';
    },
  },
};

export async function trigger(type: string, api: string, key: string): Promise<string> {
  const t = TRIGGERS[type];
  if (!t) throw new Error(`cannot trigger "${type}"; supported: ${Object.keys(TRIGGERS).join(', ')}`);
  if (!key.startsWith('sk_sandbox_')) throw new Error('trigger needs a sandbox merchant key (sk_sandbox_...)');
  return t.run(api, key);
}

export const commands = {
  listen: async (args: string[]) => {
    const f = flags(args);
    if (typeof f['forward-to'] !== 'string' || typeof f.key !== 'string')
      throw new Error('usage: listen --forward-to <url> --key <key> [--api <url>] [--interval <ms>]');
    const l = await startListener({
      api: apiBase(f.api),
      key: f.key,
      forwardTo: f['forward-to'],
      intervalMs: typeof f.interval === 'string' ? Number(f.interval) : undefined,
    });
    await new Promise<void>((resolve) => process.once('SIGINT', () => void l.stop().then(resolve)));
  },
  trigger: async (args: string[]) => {
    const f = flags(args);
    const type = args[0] && !args[0].startsWith('--') ? args[0] : undefined;
    if (!type || typeof f.key !== 'string') {
      throw new Error(
        `usage: trigger <event type> --key <sandbox merchant key> [--api <url>]; types:\n${Object.entries(TRIGGERS)
          .map(([k, v]) => `  ${k}: ${v.how}`)
          .join('\n')}`,
      );
    }
    console.log(await trigger(type, apiBase(f.api), f.key));
  },
};
