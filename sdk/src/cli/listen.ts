/**
 * `idpay listen`: polls the events API with a key and forwards each new event, once, oldest
 * first, to a local URL, signed like a real delivery (both header sets) with a secret kept in
 * a file and reused by every run (`--new-secret` replaces it). Events already there when it
 * starts are history and are not forwarded.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { newWebhookSecret, signatureHeaders } from '../signing.js';
import { call, must, type ApiEvent, type Target } from './api.js';

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

/** Where `idpay listen` keeps its secret by default: `$IDPAY_LISTEN_SECRET_FILE`, else `~/.config/idpay/listen-secret`. */
export function defaultSecretFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.IDPAY_LISTEN_SECRET_FILE) return env.IDPAY_LISTEN_SECRET_FILE;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'idpay', 'listen-secret');
}

const SECRET_SHAPE = /^whsec_[A-Za-z0-9+/=]{20,200}$/;

/** The kept signing secret, or a new one (kept, readable by this user only) when there is none or `renew`. */
export function listenSecret(file: string, renew = false): { secret: string; created: boolean } {
  if (!renew && existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (!SECRET_SHAPE.test(kept)) throw new Error(`${file} does not hold a signing secret (whsec_...): run listen with --new-secret`);
    return { secret: kept, created: false };
  }
  const secret = newWebhookSecret();
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

/** The body a real delivery of this event sends: the event as the events API shows it, without the caller's deliveries. */
export function forwardedBody(e: ApiEvent & { deliveries?: unknown }): string {
  const { deliveries: _, ...event } = e;
  return JSON.stringify(event);
}

export async function startListener(o: ListenOptions): Promise<Listener> {
  const print = o.print ?? ((l: string) => console.log(l));
  const target: Target = { api: o.api, key: o.key };
  const secret = o.secret ?? newWebhookSecret();
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
      const body = forwardedBody(e);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'idpay-cli-listen/1.0',
        ...signatureHeaders(e.id, body, [secret], Date.now()),
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
