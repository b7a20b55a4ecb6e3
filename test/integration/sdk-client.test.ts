/**
 * The SDK's client (sdk/src/client.ts) against the real local stack: typed calls, the
 * automatic Idempotency-Key (one per call, the same on every retry of it), X-Entity-Id, and
 * the retries: a 409 "in progress" retried to the replayed answer, a 5xx retried with the
 * same key to one execution. The timing rules (429 Retry-After, backoff bounds, what is not
 * retried, network errors) run against a scripted HTTP server (test/support/receiver.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../functions/platform/clients';
import {
  API_VERSION,
  createClient,
  IdpayError,
  IN_PROGRESS_MESSAGE,
  LISTS,
  unwrap,
  type IdpayClient,
  type ListPath,
} from '../../sdk/src/index';
import { agreement, bankResponse, billOne, merchantWithTrust } from '../support/flows';
import { applicationBody, personCaller, signUpAndIn } from '../support/people';
import { startTestApp, type TestApp } from '../support/app';
import { startReceiver, type Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let server: Receiver;

beforeAll(async () => {
  t = await startTestApp();
  server = await startReceiver();
});
afterAll(async () => {
  await server?.close();
  await t?.stop();
});

interface Seen {
  method: string;
  path: string;
  key: string | null;
  entity: string | null;
  status: number;
  replayed: string | null;
  at: number;
}

/** The real fetch, recording what each attempt sent and got. */
function recorder() {
  const seen: Seen[] = [];
  const fetch = async (r: Request) => {
    const res = await globalThis.fetch(r);
    seen.push({
      method: r.method,
      path: new URL(r.url).pathname,
      key: r.headers.get('idempotency-key'),
      entity: r.headers.get('x-entity-id'),
      status: res.status,
      replayed: res.headers.get('idempotent-replayed'),
      at: Date.now(),
    });
    return res;
  };
  return { seen, fetch };
}

type Stack = { add: (mw: unknown, opts: Record<string, unknown>) => void; remove: (name: string) => boolean };
type Mw = (
  next: (args: unknown) => Promise<unknown>,
  context: { commandName?: string },
) => (args: { input?: Record<string, unknown> }) => Promise<unknown>;

/**
 * An SDK middleware on the app's real DynamoDB client (nothing mocked: it only delays or
 * fails one call). At this step the command names are the client's (`UpdateItemCommand`)
 * and the input is not yet marshalled.
 */
function onDynamo(name: string, mw: Mw): () => void {
  const stack = db().middlewareStack as unknown as Stack;
  stack.add(mw, { step: 'initialize', name, override: true });
  return () => void stack.remove(name);
}

const isIdemSettle = (command: string | undefined, input: Record<string, unknown> | undefined) => {
  const sk = (input?.Key as { sk?: unknown } | undefined)?.sk;
  return command === 'UpdateItemCommand' && (sk === 'IDEM' || (sk as { S?: string } | undefined)?.S === 'IDEM');
};

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, no) => setTimeout(() => no(new Error(what)), ms))]);

/**
 * Holds the next "store the answer for this Idempotency-Key" write until `release()`, so a
 * request with the same key meets the record in progress. `holding` resolves once it holds.
 */
function holdIdempotencySettle() {
  let held!: () => void;
  const holding = new Promise<void>((ok) => (held = ok));
  let release!: () => void;
  const released = new Promise<void>((ok) => (release = ok));
  const remove = onDynamo('sdkTestHoldIdemSettle', (next, context) => async (args) => {
    if (isIdemSettle(context.commandName, args.input)) {
      held();
      await released;
    }
    return next(args);
  });
  return { holding, release, remove };
}

let n = 0;
const participantBody = (type: 'merchant' | 'bank' | 'provider', extra: Record<string, unknown> = {}) => {
  n++;
  return { type, name: `sdk ${type} ${n}`, email: `sdk-${type}-${n}-${Date.now()}@example.com`, ...extra };
};

describe('SDK client against the local stack', () => {
  it('typed calls; an automatic Idempotency-Key on every POST (a new one per call), none on GET; the call may set its own', async () => {
    const rec = recorder();
    const operator = createClient({ baseUrl: t.url, apiKey: t.operatorKey, fetch: rec.fetch });
    const created = await operator.POST('/v1/operator/participants', { body: participantBody('merchant') });
    expect(created.response.status).toBe(201);
    expect(created.error).toBeUndefined();
    const merchant = created.data!.data as { id: string; apiKey: string };
    expect(merchant.apiKey).toMatch(/^sk_sandbox_/);

    const m = createClient({ baseUrl: `${t.url}/`, apiKey: merchant.apiKey, fetch: rec.fetch });
    const ep1 = await m.POST('/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/hooks' } });
    const ep2 = await m.POST('/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/hooks2' } });
    expect([ep1.response.status, ep2.response.status]).toEqual([201, 201]);
    const list = await m.GET('/v1/webhooks/endpoints');
    expect(list.response.status).toBe(200);
    expect((list.data!.data as { total: number }).total).toBe(2);

    const posts = rec.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(3);
    for (const p of posts) expect(p.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(posts.map((p) => p.key)).size).toBe(3);
    expect(rec.seen.find((s) => s.method === 'GET')!.key).toBeNull();

    // its own key: the second call is the first one's replay
    const a = await m.POST('/v1/webhooks/endpoints', {
      body: { url: 'http://127.0.0.1:9/mine' },
      params: { header: { 'Idempotency-Key': 'my-key-1' } },
    });
    const b = await m.POST('/v1/webhooks/endpoints', {
      body: { url: 'http://127.0.0.1:9/mine' },
      headers: { 'Idempotency-Key': 'my-key-1' },
    });
    expect(rec.seen.slice(-2).map((s) => [s.key, s.status, s.replayed])).toEqual([
      ['my-key-1', 201, null],
      ['my-key-1', 201, 'true'],
    ]);
    expect(b.data).toEqual(a.data);

    // errors come back typed as the error envelope
    const bad = await m.POST('/v1/webhooks/endpoints', { body: { url: 'not a url' } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ statusCode: 400, success: false, message: 'Invalid request parameters' });
  });

  it('entityId: a provider acts for its merchant with X-Entity-Id', async () => {
    const operator = createClient({ baseUrl: t.url, apiKey: t.operatorKey });
    const provider = (await operator.POST('/v1/operator/participants', { body: participantBody('provider') })).data!.data as {
      id: string;
      apiKey: string;
    };
    const merchant = (await operator.POST('/v1/operator/participants', { body: participantBody('merchant', { providerId: provider.id }) }))
      .data!.data as {
      id: string;
      apiKey: string;
    };
    const rec = recorder();
    const asMerchant = createClient({ baseUrl: t.url, apiKey: provider.apiKey, entityId: merchant.id, fetch: rec.fetch });
    expect((await asMerchant.POST('/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/for-merchant' } })).response.status).toBe(
      201,
    );
    expect(rec.seen.every((s) => s.entity === merchant.id)).toBe(true);
    const merchantOwn = createClient({ baseUrl: t.url, apiKey: merchant.apiKey });
    const own = await merchantOwn.GET('/v1/webhooks/endpoints');
    expect((own.data!.data as { endpoints: { url: string }[] }).endpoints.map((e) => e.url)).toEqual(['http://127.0.0.1:9/for-merchant']);
    const providerOwn = createClient({ baseUrl: t.url, apiKey: provider.apiKey });
    expect(((await providerOwn.GET('/v1/webhooks/endpoints')).data!.data as { total: number }).total).toBe(0);
  });

  it('two parallel calls with the same key: the second gets 409 in progress, retries, and receives the replayed answer', async () => {
    const rec = recorder();
    const operator = createClient({ baseUrl: t.url, apiKey: t.operatorKey, fetch: rec.fetch, retry: { maxRetries: 6, baseDelayMs: 100 } });
    // Hold the first call's "store the answer" write until the second call has been refused as in progress.
    const { holding, release, remove } = holdIdempotencySettle();
    try {
      const body = participantBody('bank');
      const first = operator.POST('/v1/operator/participants', { body, headers: { 'Idempotency-Key': 'parallel-1' } });
      await within(holding, 10_000, 'the first call never stored its answer');
      const second = operator.POST('/v1/operator/participants', { body, headers: { 'Idempotency-Key': 'parallel-1' } });
      const deadline = Date.now() + 10_000;
      while (!rec.seen.some((s) => s.status === 409)) {
        if (Date.now() > deadline) throw new Error('no 409 seen');
        await sleep(10);
      }
      release();
      const [a, b] = await within(Promise.all([first, second]), 20_000, 'the calls did not finish');
      expect(a.response.status).toBe(201);
      expect(b.response.status).toBe(201);
      expect(b.response.headers.get('idempotent-replayed')).toBe('true');
      expect(b.data).toEqual(a.data); // the same participant, its key shown to the same caller
      const attempts = rec.seen.map((s) => [s.key, s.status, s.replayed]);
      expect(attempts[0]).toEqual(['parallel-1', 409, null]);
      expect(attempts.at(-1)).toEqual(['parallel-1', 201, 'true']);
      expect(attempts.filter(([, s]) => s === 201)).toHaveLength(2);
      expect(attempts.every(([k]) => k === 'parallel-1')).toBe(true);
    } finally {
      release();
      remove();
    }
  });

  it('without retries the in-progress 409 is returned as is', async () => {
    const operator = createClient({ baseUrl: t.url, apiKey: t.operatorKey, retry: false });
    const { holding, release, remove } = holdIdempotencySettle();
    try {
      const body = participantBody('bank');
      const first = operator.POST('/v1/operator/participants', { body, headers: { 'Idempotency-Key': 'parallel-2' } });
      await within(holding, 10_000, 'the first call never stored its answer');
      const second = await within(
        operator.POST('/v1/operator/participants', { body, headers: { 'Idempotency-Key': 'parallel-2' } }),
        10_000,
        'the second call did not answer while the first was held',
      );
      expect(second.response.status).toBe(409);
      expect(second.error).toMatchObject({ statusCode: 409, success: false, message: IN_PROGRESS_MESSAGE });
      release();
      expect((await first).response.status).toBe(201);
    } finally {
      release();
      remove();
    }
  });

  it('a 5xx is retried with the same automatic key, and the POST runs once', async () => {
    const rec = recorder();
    const operator = createClient({ baseUrl: t.url, apiKey: t.operatorKey, fetch: rec.fetch, retry: { baseDelayMs: 50 } });
    let failures = 1;
    const remove = onDynamo('sdkTestFailOnce', (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && failures > 0) {
        failures--;
        throw Object.assign(new Error('injected: the write failed'), { name: 'InternalServerError' });
      }
      return next(args);
    });
    try {
      const created = await within(operator.POST('/v1/operator/participants', { body: participantBody('merchant') }), 20_000, 'no answer');
      expect(created.response.status).toBe(201);
      expect(rec.seen.map((s) => s.status)).toEqual([500, 201]);
      expect(rec.seen[1]!.replayed).toBeNull(); // the 500 released the key: the retry ran the creation once
      expect(rec.seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(rec.seen[1]!.key).toBe(rec.seen[0]!.key);
      const merchant = created.data!.data as { apiKey: string };
      const me = createClient({ baseUrl: t.url, apiKey: merchant.apiKey });
      expect((await me.GET('/v1/webhooks/endpoints')).response.status).toBe(200); // the key shown works
    } finally {
      remove();
    }
  });
});

describe('SDK retry rules (scripted HTTP server)', () => {
  const client = (path: string, retry?: Parameters<typeof createClient>[0]['retry']) => {
    const rec = recorder();
    // the scripted server answers any path; call a typed path on a base URL that maps to it
    const c = createClient({ baseUrl: `${server.url}${path}`, apiKey: 'sk_sandbox_x', fetch: rec.fetch, retry });
    return { c, rec };
  };

  it('429 waits for Retry-After (seconds) before the retry', async () => {
    const { path } = server.endpointUrl('r429');
    server.script(`${path}/v1/webhooks/endpoints`, [{ status: 429, headers: { 'Retry-After': '1' } }]);
    const { c, rec } = client(path, { baseDelayMs: 10 });
    const r = await c.GET('/v1/webhooks/endpoints');
    expect(r.response.status).toBe(200);
    expect(rec.seen.map((s) => s.status)).toEqual([429, 200]);
    expect(rec.seen[1]!.at - rec.seen[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it('a Retry-After beyond maxRetryAfterMs is not waited for: the 429 is returned', async () => {
    const { path } = server.endpointUrl('r429long');
    server.script(`${path}/v1/webhooks/endpoints`, [{ status: 429, headers: { 'Retry-After': '120' } }]);
    const { c, rec } = client(path);
    const started = Date.now();
    expect((await c.GET('/v1/webhooks/endpoints')).response.status).toBe(429);
    expect(rec.seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('5xx: bounded retries with growing, jittered delays; then the last answer', async () => {
    const { path } = server.endpointUrl('r5xx');
    server.respond(`${path}/v1/webhooks/endpoints`, { status: 503 });
    const { c, rec } = client(path, { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 300 });
    const r = await c.POST('/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/x' } });
    expect(r.response.status).toBe(503);
    expect(rec.seen.map((s) => s.status)).toEqual([503, 503, 503, 503]);
    expect(new Set(rec.seen.map((s) => s.key)).size).toBe(1);
    const gaps = rec.seen.slice(1).map((s, i) => s.at - rec.seen[i]!.at);
    // step 100, 200, 300 (capped), each jittered to 50-100 %
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(145);
    for (const g of gaps) expect(g).toBeLessThan(600);
  });

  it('not retried: 400, 401, 404, 501, and a 409 that is not "retry shortly"', async () => {
    for (const [status, body] of [
      [400, '{"statusCode":400,"success":false,"message":"Invalid request parameters"}'],
      [401, '{"statusCode":401,"success":false,"message":"Invalid API key"}'],
      [404, '{"statusCode":404,"success":false,"message":"Route not found"}'],
      [501, ''],
      [409, '{"statusCode":409,"success":false,"message":"Idempotency key reused with a different request"}'],
    ] as const) {
      const { path } = server.endpointUrl('nr');
      server.respond(`${path}/v1/webhooks/endpoints`, { status, body, headers: { 'content-type': 'application/json' } });
      const { c, rec } = client(path, { baseDelayMs: 10 });
      expect((await c.POST('/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/x' } })).response.status).toBe(status);
      expect(rec.seen, String(status)).toHaveLength(1);
    }
  });

  it('a 409 whose every element says "retry shortly" (contention, nothing written) is retried', async () => {
    const { path } = server.endpointUrl('r409');
    server.script(`${path}/v1/customer/bill`, [
      {
        status: 409,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([{ statusCode: 409, success: false, message: 'Billing is busy, retry shortly', code: 'billing_contention' }]),
      },
    ]);
    const { c, rec } = client(path, { baseDelayMs: 10 });
    const r = await c.POST('/v1/customer/bill', { body: { agreementPhrases: ['ap'], amount: 1, currency: 'NGN', description: 'x' } });
    expect(r.response.status).toBe(200);
    expect(rec.seen.map((s) => s.status)).toEqual([409, 200]);
  });

  it('a network error is retried with the same key, then thrown when retries run out', async () => {
    const attempts: (string | null)[] = [];
    const c = createClient({
      baseUrl: 'http://127.0.0.1:9', // discard port: connection refused
      apiKey: 'sk_sandbox_x',
      retry: { maxRetries: 2, baseDelayMs: 10 },
      fetch: (r) => {
        attempts.push(r.headers.get('idempotency-key'));
        return globalThis.fetch(r);
      },
    });
    await expect(c.POST('/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/x' } })).rejects.toThrow();
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts).size).toBe(1);
  });
});

describe('pinned API versions', () => {
  it('a participant keeps the version it was created at when the current one moves; Idpay-Version overrides per request; events carry apiVersion and livemode', async () => {
    const NEXT = '2099-01-01';
    const pinned = await t.call<any>('POST', '/v1/operator/participants', {
      key: t.operatorKey,
      body: { type: 'merchant', name: 'Pinned Shop', email: `pinned-${Date.now()}@example.com` },
    });
    expect(pinned.body.data.apiVersion).toBe(API_VERSION);
    const old = { key: pinned.body.data.apiKey as string };
    const hook = server.endpointUrl('pinned');
    const endpointOf = async (key: string) =>
      (await t.call<any>('POST', '/v1/webhooks/endpoints', { key, body: { url: hook.url } })).body.data.id as string;
    const oldEndpoint = await endpointOf(old.key);

    process.env.API_NEXT_VERSION = NEXT; // the current version moves (test only)
    try {
      const later = await t.call<any>('POST', '/v1/operator/participants', {
        key: t.operatorKey,
        body: { type: 'merchant', name: 'Later Shop', email: `later-${Date.now()}@example.com` },
      });
      expect(later.body.data.apiVersion).toBe(NEXT);
      const fresh = { key: later.body.data.apiKey as string };
      const served = async (key: string, headers: Record<string, string> = {}) =>
        (await t.call('GET', '/v1/webhooks/endpoints', { key, headers })).headers.get('idpay-version');
      // No header: each at its own pinned version; the header overrides for that request only.
      expect(await served(old.key)).toBe(API_VERSION);
      expect(await served(fresh.key)).toBe(NEXT);
      expect(await served(old.key, { 'Idpay-Version': NEXT })).toBe(NEXT);
      expect(await served(old.key)).toBe(API_VERSION);
      // No key: the current version.
      expect((await t.call('GET', '/v1/nothing-here')).headers.get('idpay-version')).toBe(NEXT);
      // The SDK says the version it was generated for, whatever the participant's.
      const sdk = await createClient({ baseUrl: t.url, apiKey: fresh.key }).GET('/v1/webhooks/endpoints');
      expect(sdk.response.headers.get('idpay-version')).toBe(API_VERSION);

      // Events: the delivery is written at the receiving endpoint's version (pinned when it was made), in the events API at the request's.
      const freshEndpoint = await endpointOf(fresh.key);
      for (const [key, id, version] of [
        [old.key, oldEndpoint, API_VERSION],
        [fresh.key, freshEndpoint, NEXT],
      ] as const) {
        const sent = await t.call<any>('POST', `/v1/webhooks/endpoints/${id}/test`, { key, body: {} });
        expect(sent.status).toBe(202);
        const listed = await t.call<any>('GET', '/v1/events', { key, query: { type: 'webhook.test' } });
        expect(listed.body.data.events[0]).toMatchObject({ type: 'webhook.test', apiVersion: version, livemode: false });
        const delivered = await server.waitFor(
          hook.path,
          (reqs) => reqs.some((r) => JSON.parse(r.body).id === sent.body.data.eventId),
          20_000,
        );
        const body = JSON.parse(delivered.find((r) => JSON.parse(r.body).id === sent.body.data.eventId)!.body);
        expect(body).toMatchObject({ apiVersion: version, livemode: false, type: 'webhook.test' });
        expect(Object.keys(body)).toEqual(['id', 'type', 'createdAt', 'apiVersion', 'livemode', 'data']);
      }
    } finally {
      delete process.env.API_NEXT_VERSION;
    }
  }, 60_000);
});

describe('paginate', () => {
  it('goes through every list operation of the document, page by page (limit 1), to the items one full page shows', async () => {
    // Something in most lists, two or more where it is cheap: a person who owns a merchant
    // (keys, team, invitations, audit log), payments under two agreements (transactions,
    // decisions), endpoints and test events, a provider with two merchants.
    const who = await signUpAndIn();
    const applied = await personCaller(t, who)('POST', '/v1/onboarding/applications', { body: applicationBody('merchant') });
    expect(applied.status).toBe(201);
    const merchantId = applied.body.data.participantId as string;
    const person = createClient({ baseUrl: t.url, apiKey: who.accessToken, headers: { 'X-Participant-Id': merchantId } });
    const me = await t.call<any>('GET', '/v1/me', { key: who.accessToken });
    expect(me.body.data.memberships[0]).toMatchObject({ participantId: merchantId, apiVersion: API_VERSION });
    for (const name of ['one', 'two']) await unwrap(person.POST('/v1/keys', { body: { name } }));
    for (const n of [1, 2])
      await unwrap(person.POST('/v1/team/invitations', { body: { email: `invitee${n}-${Date.now()}@example.com`, role: 'developer' } }));

    const a = await agreement(t);
    await agreement(t, { bank: a.bank, merchant: a.merchant });
    const b = await agreement(t, { bank: a.bank, merchant: a.merchant });
    const paid = await billOne(t, a, 100);
    await billOne(t, b, 100);
    expect((await bankResponse(t, a.bank, paid.el.billingRequestId, 'approve_once')).status).toBe(200);
    const merchant = createClient({ baseUrl: t.url, apiKey: a.merchant.apiKey });
    for (const n of [1, 2]) {
      const ep = await unwrap(merchant.POST('/v1/webhooks/endpoints', { body: { url: server.endpointUrl(`pages${n}`).url } }));
      await unwrap(merchant.POST('/v1/webhooks/endpoints/{id}/test', { params: { path: { id: ep.data.id } } }));
    }
    // The events of a payment (its page and the events API) carry the version and the stage.
    const detail = await t.call<any>('GET', '/v1/transaction-details', { key: a.merchant.apiKey, query: { reference: paid.el.reference } });
    const [first] = detail.body.data.events;
    expect(first).toMatchObject({ apiVersion: API_VERSION, livemode: false });
    expect((await t.call<any>('GET', `/v1/events/${first.id}`, { key: a.merchant.apiKey })).body.data).toMatchObject({
      id: first.id,
      apiVersion: API_VERSION,
    });
    const { provider } = await merchantWithTrust(t, { provider: true });
    await t.participant('merchant', { providerId: provider!.id });

    // A business rule about one field names it; every error links its code's entry.
    const over = await unwrap(merchant.POST('/v1/refunds/initiate', { body: { reference: paid.el.reference, amount: 1_000 } })).catch(
      (e: unknown) => e,
    );
    expect(over).toBeInstanceOf(IdpayError);
    expect(over).toMatchObject({
      status: 400,
      code: 'refund_exceeds_refundable',
      param: 'amount',
      docUrl: `${t.url}/docs#error-refund_exceeds_refundable`,
    });

    const clients: Record<string, IdpayClient> = {
      operator: createClient({ baseUrl: t.url, apiKey: t.operatorKey }),
      person,
      bank: createClient({ baseUrl: t.url, apiKey: a.bank.apiKey }),
      merchant,
      provider: createClient({ baseUrl: t.url, apiKey: provider!.apiKey }),
    };
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: Record<string, { get?: Record<string, any> }> };
    const documented = Object.entries(doc.paths)
      .filter(([, item]) => item.get?.['x-list'])
      .map(([path]) => path)
      .sort();
    expect(Object.keys(LISTS).sort()).toEqual(documented);

    // Lists under a path parameter: the object whose list it is.
    const PATH_PARAMS: Record<string, Record<string, string>> = {
      '/v1/bank/customers/{customerId}/consents': { customerId: a.customerId },
    };
    const counts: Record<string, number> = {};
    for (const path of documented as ListPath[]) {
      const op = doc.paths[path]!.get!;
      const kinds = op['x-participant-kinds'] as string[];
      const caller = op['x-caller'] === 'person' ? 'person' : kinds.includes('merchant') ? 'merchant' : kinds[0]!;
      const c = clients[caller]!;
      const list = LISTS[path];
      const pathParams = PATH_PARAMS[path] ? { path: PATH_PARAMS[path] } : {};
      const page = await unwrap(c.GET(path as '/v1/events', { params: { ...pathParams, query: { limit: 100 } } } as never));
      const whole = (list.items === null ? page.data : (page.data as unknown as Record<string, unknown[]>)[list.items]) as Record<
        string,
        unknown
      >[];
      const items: Record<string, unknown>[] = [];
      for await (const item of c.paginate(path, { params: { ...pathParams, query: { limit: 1 } } } as never))
        items.push(item as Record<string, unknown>);
      expect(
        items.map((i) => i[list.cursor]),
        path,
      ).toEqual(whole.map((i) => i[list.cursor]));
      counts[path] = items.length;
    }
    // The cursor was followed (more than one page) on these lists at least.
    for (const path of [
      '/v1/keys',
      '/v1/team/invitations',
      '/v1/audit-log',
      '/v1/transaction-history',
      '/v1/merchant/customer-decisions',
      '/v1/bank/customer-decisions',
      '/v1/webhooks/endpoints',
      '/v1/events',
      '/v1/provider/merchants',
    ])
      expect(counts[path], path).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
