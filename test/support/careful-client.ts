/**
 * A client that behaves like a careful integrator: every POST carries an Idempotency-Key,
 * and it retries what the API says to retry (5xx, 429, and the 409s whose code says "retry
 * shortly", as the SDK does) with capped exponential backoff and jitter, within a time budget. It also
 * checks every single answer it gets: JSON, the envelope (or the bill/pay/intent element
 * array), a 5xx that leaks nothing, and no request that hangs.
 */
import { contractProblems, eventProblems, surfaceProblems } from './contract';
import { recordExample } from './examples';
import type { TestApp } from './app';
import { envelopeProblem } from './fuzz';
import { sleep } from '../../functions/platform/retry';
import { isRetryShortly } from '../../sdk/src/client';

export interface ClientCall {
  method: string;
  path: string;
  key: string;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Idempotency-Key (POST). */
  idem?: string;
}

export interface ClientResult<T = any> {
  status: number;
  body: T;
  attempts: number;
  /** The budget ran out while the API still said "retry". */
  gaveUp: boolean;
  replayed: boolean;
}

const MULTI_STATUS = /^\/v1\/(customer\/bill|customer\/pay|billing\/intent)$/;
const ELEMENT_5XX_KEYS = new Set([
  'statusCode',
  'success',
  'message',
  'code',
  'type',
  'docUrl',
  'phrase',
  'lookupPhrase',
  'agreementPhrase',
  'entityId',
]);

export function messageOf(body: unknown): string {
  if (Array.isArray(body)) return String((body[0] as { message?: string } | undefined)?.message ?? '');
  return String((body as { message?: string } | undefined)?.message ?? '');
}

export class RetryingClient {
  readonly problems: string[] = [];
  readonly statuses = new Map<string, number>();
  /** Retryable answers that came back as an idempotent REPLAY (retrying with that key can never succeed). */
  readonly stuckReplays: string[] = [];
  requests = 0;

  constructor(
    private readonly t: TestApp,
    private readonly opts: { budgetMs: number; requestTimeoutMs?: number } = { budgetMs: 90_000 },
  ) {}

  private async once(c: ClientCall, label: string): Promise<{ status: number; body: unknown; replayed: boolean } | undefined> {
    const url = new URL(c.path, this.t.url);
    for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { authorization: `Bearer ${c.key}`, ...c.headers };
    if (c.idem) headers['idempotency-key'] = c.idem;
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    this.requests++;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: c.method,
        headers,
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
        signal: AbortSignal.timeout(this.opts.requestTimeoutMs ?? 45_000),
      });
      text = await res.text();
    } catch (e) {
      this.problems.push(`${label}: no answer (${(e as Error).name}: ${(e as Error).message})`);
      return undefined;
    }
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* checked below */
    }
    const key = `${c.method} ${c.path.replace(/\/(breq|txn|rfd|sch|whe|dlv|dec)_[A-Za-z0-9]+/g, '/{id}')} ${res.status}`;
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
    // The served OpenAPI document describes this answer (test/support/contract.ts).
    const stage = (this.t.app.env.STAGE ?? 'sandbox') as 'sandbox' | 'live';
    for (const p of contractProblems(stage, c.method, url.toString(), res.status, body, res.headers.get('content-type')))
      this.problems.push(`${label}: ${p}`);
    for (const p of [
      ...surfaceProblems(stage, res.status, res.headers, body),
      ...eventProblems(c.method, url.toString(), res.status, body),
    ])
      this.problems.push(`${label}: ${p}`);
    recordExample(stage, c.method, url.toString(), res.status, c.body, body);
    if (!res.headers.get('x-request-id'))
      this.problems.push(`${label}: ${res.status} without X-Request-Id (the handler itself failed?): ${text.slice(0, 200)}`);
    if (res.status < 500) {
      const problem = envelopeProblem({ status: res.status, body }, { multiStatus: MULTI_STATUS.test(c.path) });
      if (problem) this.problems.push(`${label}: ${problem}`);
    } else {
      const b = body as Record<string, unknown>;
      // Bill, pay and intent answer per element: a failed element echoes only the caller's own phrase and entityId.
      const element = (e: Record<string, unknown>) =>
        e.statusCode === res.status &&
        e.success === false &&
        e.message === 'Internal server error' &&
        Object.keys(e).every((k) => ELEMENT_5XX_KEYS.has(k));
      const clean =
        Array.isArray(body) && MULTI_STATUS.test(c.path)
          ? body.length > 0 && body.every(element)
          : b && b.statusCode === res.status && b.success === false && b.message === 'Internal server error';
      if (!clean) {
        this.problems.push(`${label}: a 5xx that is not the bare internal error envelope: ${res.status} ${text.slice(0, 300)}`);
      }
    }
    return { status: res.status, body, replayed: res.headers.get('idempotent-replayed') === 'true' };
  }

  async call<T = any>(label: string, c: ClientCall): Promise<ClientResult<T>> {
    const deadline = Date.now() + this.opts.budgetMs;
    for (let attempt = 1; ; attempt++) {
      const r = await this.once(c, label);
      if (r) {
        const msg = messageOf(r.body);
        // As the SDK decides: a 409 by its code (the error table's retry codes).
        const retryable = r.status >= 500 || r.status === 429 || (r.status === 409 && isRetryShortly(r.body));
        if (!retryable) return { status: r.status, body: r.body as T, attempts: attempt, gaveUp: false, replayed: r.replayed };
        if (r.replayed) {
          // The stored answer of this key says "retry": the key can never succeed again.
          this.stuckReplays.push(`${label}: ${r.status} ${msg}`);
          return { status: r.status, body: r.body as T, attempts: attempt, gaveUp: true, replayed: true };
        }
        if (Date.now() > deadline) return { status: r.status, body: r.body as T, attempts: attempt, gaveUp: true, replayed: r.replayed };
      } else if (Date.now() > deadline) {
        return { status: 0, body: undefined as T, attempts: attempt, gaveUp: true, replayed: false };
      }
      const base = Math.min(2_000, 100 * 2 ** Math.min(attempt, 5));
      await sleep(base / 2 + Math.random() * base);
    }
  }

  summary(): string {
    return [...this.statuses]
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
  }
}
