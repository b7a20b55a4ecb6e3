import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inOneRateWindow } from '../support/rate-window';
import { startTestApp, type TestApp } from '../support/app';
import { getItem, putItem, queryAll, table, UpdateCommand } from '../../functions/platform/table';
import { withChecksum } from '../../functions/domain/api-keys';
import { idempotencyPk, idempotencyRequestHash } from '../../functions/http/idempotency';
import { apiKeyKey, keysPk, participantKey } from '../../functions/identity/participant-store';
import { sha256Hex } from '../../functions/domain/ids';
import { db } from '../../functions/platform/clients';

let t: TestApp;
beforeAll(async () => {
  // A small limit for the 'batch' rate class lets the 429 test run quickly.
  t = await startTestApp({ RATE_LIMITS: JSON.stringify({ batch: 3 }) });
});
afterAll(async () => t?.stop());

describe('authentication', () => {
  it('rejects a request without a key', async () => {
    const r = await t.call('GET', '/v1/balance/details');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ statusCode: 401, success: false, message: 'Missing API key' });
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('rejects an unknown key', async () => {
    // Well formed, valid checksum (DESIGN 8.1), never issued: refused by the lookup.
    const r = await t.call('GET', '/v1/balance/details', { key: withChecksum('sk_sandbox_doesnotexist00000000000000000000000') });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ statusCode: 401, success: false, message: 'Invalid API key' });
  });

  it('rejects a key of the other stage before any lookup', async () => {
    const r = await t.call('GET', '/v1/balance/details', { key: 'sk_live_abc' });
    expect(r.status).toBe(401);
    expect(r.body.message).toBe('API key is not valid for the sandbox environment');
  });

  it('rejects a malformed Authorization header as an invalid key', async () => {
    const r = await t.call('GET', '/v1/balance/details', { headers: { authorization: 'Basic abc' } });
    expect(r.status).toBe(401);
    expect(r.body.message).toBe('Invalid API key');
  });

  it('issues a new key, and refuses a revoked key at once while the others keep working', async () => {
    const m = await t.participant('merchant');
    expect(m.apiKey).toMatch(/^sk_sandbox_[0-9A-Za-z]{46}$/); // 40 random + 6 check characters
    const before = await t.call('GET', '/v1/balance/details', { key: m.apiKey });
    expect(before.status).not.toBe(401);
    const created = await t.call('POST', `/v1/operator/participants/${m.id}/keys`, { key: t.operatorKey });
    expect(created.status).toBe(201);
    const { keyId, apiKey } = created.body.data;
    expect(apiKey).toMatch(/^sk_sandbox_/);
    expect((await t.call('GET', '/v1/balance/details', { key: apiKey })).status).not.toBe(401);
    const revoked = await t.call('DELETE', `/v1/operator/keys/${keyId}`, { key: t.operatorKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ keyId, participantId: m.id });
    const after = await t.call('GET', '/v1/balance/details', { key: apiKey });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Invalid API key');
    expect((await t.call('GET', '/v1/balance/details', { key: m.apiKey })).status).not.toBe(401);
  });

  it('stores only the SHA-256 hash of a key', async () => {
    const m = await t.participant('bank');
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(m.apiKey).digest('hex');
    const item = await getItem({ pk: `APIKEY#${hash}`, sk: 'KEY' });
    expect(item).toMatchObject({ participantId: m.id, kind: 'bank', stage: 'sandbox' });
    expect(JSON.stringify(item)).not.toContain(m.apiKey);
  });

  it('answers 404 for unknown keys and participants on the operator API', async () => {
    expect((await t.call('DELETE', '/v1/operator/keys/key_nope', { key: t.operatorKey })).body).toMatchObject({
      statusCode: 404,
      message: 'API key not found',
    });
    expect((await t.call('POST', '/v1/operator/participants/mer_nope/keys', { key: t.operatorKey })).body).toMatchObject({
      statusCode: 404,
      message: 'Participant not found',
    });
  });
});

describe("the operator's participant list (DESIGN 10.7)", () => {
  it('lists every participant newest first: type filter, search by name, e-mail or id (any case), cursor paging; operator only', async () => {
    const merchant = await t.participant('merchant');
    await t.participant('bank');
    const list = (query: Record<string, string>) => t.call('GET', '/v1/operator/participants', { key: t.operatorKey, query });
    const ids = async (query: Record<string, string>) => (await list(query)).body.data.participants.map((p: { id: string }) => p.id);
    expect(await ids({ q: merchant.name.toUpperCase() })).toEqual([merchant.id]);
    expect(await ids({ q: merchant.id, type: 'merchant' })).toEqual([merchant.id]);
    expect(await ids({ q: merchant.email })).toEqual([merchant.id]);
    expect(await ids({ q: merchant.id, type: 'bank' })).toEqual([]);
    const first = await list({ limit: '1' });
    expect(first.status).toBe(200);
    expect(first.body.data.hasMore).toBe(true);
    const second = await list({ limit: '1', startingAfter: first.body.data.participants[0].id });
    expect(second.body.data.participants[0].createdAt <= first.body.data.participants[0].createdAt).toBe(true);
    expect(second.body.data.participants[0].id).not.toBe(first.body.data.participants[0].id);
    expect((await list({ type: 'nobody' })).status).toBe(400);
    expect((await t.call('GET', '/v1/operator/participants', { key: merchant.apiKey })).status).toBe(403);
  });

  it('filters participants by status: active while one of its keys works, inactive once every key is revoked; paged within the status', async () => {
    const tag = `Status ${Date.now()}`;
    const [a, b, c] = [
      await t.participant('merchant', { name: `${tag} A` }),
      await t.participant('merchant', { name: `${tag} B` }),
      await t.participant('merchant', { name: `${tag} C` }),
    ];
    const list = async (query: Record<string, string>) => {
      const r = await t.call('GET', '/v1/operator/participants', { key: t.operatorKey, query: { q: tag, ...query } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data as { participants: { id: string; status: string }[]; hasMore: boolean };
    };
    const keyIdsOf = async (id: string) =>
      (await queryAll({ IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': keysPk(id) } })).map(
        (r) => r.keyId as string,
      );
    const revoke = async (keyId: string) =>
      expect((await t.call('DELETE', `/v1/operator/keys/${keyId}`, { key: t.operatorKey })).status).toBe(200);
    const revokeAll = async (id: string) => {
      for (const keyId of await keyIdsOf(id)) await revoke(keyId);
    };
    // A: its first key revoked, a second one made: still active. B and C: every key revoked.
    const second = await t.call('POST', `/v1/operator/participants/${a.id}/keys`, { key: t.operatorKey });
    await revokeAll(b.id);
    await revokeAll(c.id);
    await revoke((await keyIdsOf(a.id)).find((k) => k !== second.body.data.keyId)!);

    expect((await list({})).participants.map((p) => [p.id, p.status])).toEqual([
      [c.id, 'inactive'],
      [b.id, 'inactive'],
      [a.id, 'active'],
    ]);
    expect((await list({ status: 'active' })).participants.map((p) => p.id)).toEqual([a.id]);
    // Newest first, one per page: the page reads past A (active) to fill itself, and says what follows.
    const p1 = await list({ status: 'inactive', limit: '1' });
    expect(p1).toEqual({ participants: [expect.objectContaining({ id: c.id, status: 'inactive' })], hasMore: true });
    const p2 = await list({ status: 'inactive', limit: '1', startingAfter: c.id });
    expect(p2).toEqual({ participants: [expect.objectContaining({ id: b.id, status: 'inactive' })], hasMore: false });
    expect((await list({ status: 'active', limit: '1', startingAfter: c.id })).participants.map((p) => p.id)).toEqual([a.id]);
    const bad = await t.call('GET', '/v1/operator/participants', { key: t.operatorKey, query: { status: 'suspended' } });
    expect(bad.status).toBe(400);
  });
});

describe('authorization by participant kind', () => {
  it('refuses a bank key on a merchant route', async () => {
    const b = await t.participant('bank');
    const r = await t.call('GET', '/v1/balance/details', { key: b.apiKey });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ statusCode: 403, success: false, message: 'Forbidden for this participant type' });
  });

  it('refuses participant keys on the operator API', async () => {
    const m = await t.participant('merchant');
    const r = await t.call('POST', '/v1/operator/participants', {
      key: m.apiKey,
      body: { type: 'bank', name: 'x', email: 'x@example.com' },
    });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('Forbidden for this participant type');
  });

  it("lets a provider act for its own merchant and hides other providers' merchants", async () => {
    const p1 = await t.participant('provider');
    const p2 = await t.participant('provider');
    const own = await t.participant('merchant', { providerId: p1.id });
    const foreign = await t.participant('merchant', { providerId: p2.id });
    const ok = await t.call('GET', '/v1/balance/details', { key: p1.apiKey, headers: { 'x-entity-id': own.id } });
    expect([200, 501]).toContain(ok.status); // authorized: reaches the handler
    const r = await t.call('GET', '/v1/balance/details', { key: p1.apiKey, headers: { 'x-entity-id': foreign.id } });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Merchant not found' });
    const unknown = await t.call('GET', '/v1/balance/details', { key: p1.apiKey, headers: { 'x-entity-id': 'mer_unknown' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Merchant not found');
  });

  it('asks a provider for X-Entity-Id on a merchant-only route', async () => {
    const p = await t.participant('provider');
    const r = await t.call('GET', '/v1/balance/details', { key: p.apiKey });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('X-Entity-Id header is required when a provider calls a merchant endpoint');
  });

  it('refuses to attach a merchant to an unknown provider', async () => {
    const r = await t.call('POST', '/v1/operator/participants', {
      key: t.operatorKey,
      body: { type: 'merchant', name: 'M', email: 'm-unknown-prov@example.com', providerId: 'prv_nope' },
    });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Participant not found');
  });
});

describe('request handling', () => {
  it('a body over 10 MB is 413 and the kept-alive connection serves the next request (local server: it hung)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    /** One request on the agent's single connection: status, Connection header, body, whether the connection was reused. */
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<{ status: number; connection?: string; body: string; reused: boolean }>((resolve, reject) => {
        const url = new URL(path, t.url);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method,
            agent,
            headers: body ? { 'content-type': 'application/json' } : {},
          },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () =>
              resolve({ status: res.statusCode!, connection: res.headers.connection, body: text, reused: req.reusedSocket }),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const tooLarge = await send('POST', '/v1/customer/pay', Buffer.alloc(11 * 1024 * 1024, 0x20));
      expect([tooLarge.status, JSON.parse(tooLarge.body).message]).toEqual([413, 'Request too large']);
      const next = await send('GET', '/v1/balance/details');
      expect([next.status, JSON.parse(next.body).message, next.reused]).toEqual([401, 'Missing API key', true]);
      // Far over the limit: answered before the body ends, with Connection: close; the next request gets a new connection.
      const huge = await send('POST', '/v1/customer/pay', Buffer.alloc(51 * 1024 * 1024, 0x20));
      expect([huge.status, huge.connection]).toEqual([413, 'close']);
      const after = await send('GET', '/v1/balance/details');
      expect([after.status, after.reused]).toEqual([401, false]);
    } finally {
      agent.destroy();
    }
  });

  it('answers malformed JSON with 400 Invalid JSON body and writes nothing', async () => {
    const r = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, rawBody: '{"type": "bank",' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid JSON body' });
  });

  it('answers a body that fails validation with the field errors', async () => {
    const r = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: { type: 'shop', name: '', email: 'nope' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid request parameters');
    expect(r.body).toMatchObject({
      code: 'invalid_request_parameters',
      type: 'invalid_request_error',
      docUrl: '/docs#error-invalid_request_parameters',
      requestId: r.headers.get('x-request-id'),
    });
    const paths = r.body.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['email', 'name', 'type']);
  });

  it('answers an unknown route with 404 Route not found', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['DELETE', '/v1/balance/details/extra'],
      ['POST', '/v1/recurring/sch_1/nothing'],
      ['GET', '/'],
    ] as const) {
      const r = await t.call(method, path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Route not found' });
      expect(r.headers.get('x-request-id')).toBeTruthy();
      expect(r.headers.get('allow')).toBeNull();
    }
  });

  it('answers a known path with a wrong method with 405 Method not allowed and Allow (alphabetical), before any key check', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/v1/balance/details', 'GET'],
      ['PUT', '/v1/balance/details', 'GET'],
      ['GET', '/v1/customer/bill', 'POST'],
      ['POST', '/v1/recurring/sch_anything', 'DELETE, GET, PATCH'],
      ['PATCH', '/v1/webhooks/endpoints', 'GET, POST'],
      ['DELETE', '/v1/provider/merchant', 'GET, PATCH'],
      ['GET', '/v1/sandbox/settlements/run', 'POST'],
    ] as const) {
      const r = await t.call(method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.body).toEqual({
        statusCode: 405,
        success: false,
        message: 'Method not allowed',
        code: 'method_not_allowed',
        type: 'invalid_request_error',
        docUrl: '/docs#error-method_not_allowed',
        requestId: r.headers.get('x-request-id'),
      });
      expect(r.headers.get('allow')).toBe(allow);
      expect(r.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it("refuses a page size above 100 (and below 1) with 400 and the endpoint's query message", async () => {
    const m = await t.participant('merchant');
    const p = await t.participant('provider');
    for (const limit of ['101', '0', 'ten']) {
      const r = await t.call('GET', '/v1/merchant/customer-decisions', { key: m.apiKey, query: { limit } });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid query parameters' });
      const q = await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: { limit } });
      expect(q.status).toBe(400);
    }
    const ok = await t.call('GET', '/v1/merchant/customer-decisions', { key: m.apiKey, query: { limit: '100' } });
    expect(ok.status).toBe(200);
  });

  it('echoes a well-formed X-Request-Id', async () => {
    const r = await t.call('GET', '/v1/balance/details', { headers: { 'x-request-id': 'req-abc.123' } });
    expect(r.headers.get('x-request-id')).toBe('req-abc.123');
  });

  it('answers registered but unbuilt routes with 501 Not implemented in the envelope', async () => {
    const b = await t.participant('bank');
    const r = await t.call('GET', '/v1/bank/customer/subscriptions', { key: b.apiKey });
    if (r.status === 501) expect(r.body).toMatchObject({ statusCode: 501, success: false, message: 'Not implemented' });
    else expect(r.status).toBeLessThan(500);
  });
});

describe('API version (Idpay-Version)', () => {
  it('every answer carries Idpay-Version 2026-11-01: success, error, unknown route, 405, the public documents', async () => {
    const b = await t.participant('bank');
    for (const [method, path, key] of [
      ['GET', '/v1/bank/customer-decisions', b.apiKey],
      ['GET', '/v1/balance/details', b.apiKey],
      ['GET', '/v1/nothing-here', undefined],
      ['OPTIONS', '/v1/balance/details', undefined],
      ['GET', '/v1/openapi.json', undefined],
      ['GET', '/docs', undefined],
    ] as const) {
      const r = await t.call(method, path, { key });
      expect(r.headers.get('idpay-version'), `${method} ${path} ${r.status}`).toBe('2026-11-01');
    }
  });

  it('a request may name the version; an unknown one is 400 Unknown API version before the route and the key', async () => {
    const b = await t.participant('bank');
    const named = await t.call('GET', '/v1/bank/customer-decisions', { key: b.apiKey, headers: { 'Idpay-Version': '2026-11-01' } });
    expect(named.status).toBe(200);
    for (const [method, path, key] of [
      ['GET', '/v1/bank/customer-decisions', b.apiKey],
      ['GET', '/v1/balance/details', undefined], // no key: still the version first
      ['POST', '/v1/nothing-here', undefined],
      ['GET', '/v1/openapi.json', undefined],
    ] as const) {
      const r = await t.call(method, path, { key, headers: { 'Idpay-Version': '2025-01-01' } });
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body).toEqual({
        statusCode: 400,
        success: false,
        message: 'Unknown API version',
        code: 'unknown_api_version',
        type: 'invalid_request_error',
        docUrl: '/docs#error-unknown_api_version',
        requestId: r.headers.get('x-request-id'),
        errors: [{ path: 'Idpay-Version', message: 'supported: 2026-11-01' }],
      });
    }
  });
});

describe('rate limiting', () => {
  it('puts X-RateLimit-* on every authenticated response, errors included', async () => {
    const m = await t.participant('merchant');
    const [ok, forbidden] = await inOneRateWindow(async () => [
      await t.call('GET', '/v1/balance/details', { key: m.apiKey }),
      await t.call('GET', '/v1/bank/customer-decisions', { key: m.apiKey }),
    ]);
    for (const r of [ok!, forbidden!]) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('600');
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
    expect(Number(forbidden!.headers.get('x-ratelimit-remaining'))).toBe(Number(ok!.headers.get('x-ratelimit-remaining')) - 1);
  });

  it('answers 429 with Retry-After once the limit of the class is reached', async () => {
    let bankKey = '';
    const answers = await inOneRateWindow(async () => {
      // a new bank each time (see inOneRateWindow)
      bankKey = (await t.participant('bank')).apiKey;
      const burst = [];
      for (let i = 0; i < 5; i++) burst.push(await t.call('POST', '/v1/bank/customers', { key: bankKey, body: { customers: [] } }));
      return burst;
    });
    const statuses = answers.map((r) => r.status);
    const last = answers[4]!;
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(last.body).toEqual({
      statusCode: 429,
      success: false,
      message: 'Too many requests',
      code: 'rate_limited',
      type: 'rate_limit_error',
      docUrl: '/docs#error-rate_limited',
      requestId: last.headers.get('x-request-id'),
    });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(last.headers.get('x-ratelimit-limit')).toBe('3');
    // other classes of the same key are unaffected
    expect((await t.call('GET', '/v1/bank/customer-decisions', { key: bankKey })).status).not.toBe(429);
  });

  it('counts a request in the next minute when another request opened it first, instead of failing it', async () => {
    // A request at a minute's edge computes its window from its own clock; another request (or an
    // instance whose clock runs a little ahead) may already have opened the next one. It must be
    // answered and counted there, not fail with a 500 (it used to: "Rate-limit window contention").
    const m = await t.participant('merchant');
    const created = await t.call('POST', `/v1/operator/participants/${m.id}/keys`, { key: t.operatorKey });
    expect(created.status).toBe(201);
    const { apiKey } = created.body.data;
    const key = apiKeyKey(sha256Hex(apiKey));
    const next = Math.floor(Date.now() / 60_000) * 60 + 60;
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'SET rlw_default = :w, rln_default = :n',
        ExpressionAttributeValues: { ':w': next, ':n': 5 },
      }),
    );
    const r = await t.call('GET', '/v1/balance/details', { key: apiKey });
    expect(r.status).toBe(200);
    const stored = await getItem(key, true);
    expect(stored).toMatchObject({ rlw_default: next, rln_default: 6 });
  });

  it('writes no DynamoDB item per request: the count is flushed every 5 % of the limit, lastUsedAt with it', async () => {
    // DESIGN 10.2: a fresh key's first request stamps lastUsedAt (and opens the window); the next
    // requests are counted in the instance and written in one batch once 5 % of the limit (600:
    // 30) is held, the headers exact all along.
    const m = await t.participant('merchant');
    let key = apiKeyKey('');
    let afterFirst: Record<string, unknown> | undefined;
    let afterThirty: Record<string, unknown> | undefined;
    const answers = await inOneRateWindow(async () => {
      // a new key each time (see inOneRateWindow)
      const created = await t.call('POST', `/v1/operator/participants/${m.id}/keys`, { key: t.operatorKey });
      const apiKey: string = created.body.data.apiKey;
      key = apiKeyKey(sha256Hex(apiKey));
      const calls = [await t.call('GET', '/v1/balance/details', { key: apiKey })];
      afterFirst = await getItem<Record<string, unknown>>(key, true);
      for (let i = 0; i < 29; i++) calls.push(await t.call('GET', '/v1/balance/details', { key: apiKey }));
      afterThirty = await getItem<Record<string, unknown>>(key, true);
      calls.push(await t.call('GET', '/v1/balance/details', { key: apiKey }));
      return calls;
    });
    const last = answers.at(-1)!;
    expect(afterFirst).toMatchObject({ rln_default: 1 });
    expect(typeof afterFirst!.lastUsedAt).toBe('string');
    expect(afterThirty).toEqual(afterFirst);
    expect(await getItem(key, true)).toMatchObject({ rln_default: 31 });
    expect(last.headers.get('x-ratelimit-remaining')).toBe(String(600 - 31));
  });

  it('does not rate limit the operator key', async () => {
    const r = await t.call('POST', `/v1/operator/participants/nope/keys`, { key: t.operatorKey });
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('idempotency', () => {
  const body = (email: string) => ({ type: 'merchant', name: 'Idem Shop', email });

  it('replays the first response for the same key and body', async () => {
    const headers = { 'idempotency-key': 'create-shop-1' };
    const first = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: body('idem1@example.com'), headers });
    expect(first.status).toBe(201);
    const second = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: body('idem1@example.com'), headers });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  });

  it('refuses the same key with a different body', async () => {
    const headers = { 'idempotency-key': 'create-shop-2' };
    expect(
      (await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: body('idem2@example.com'), headers })).status,
    ).toBe(201);
    const r = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: body('other@example.com'), headers });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ statusCode: 409, success: false, message: 'Idempotency key reused with a different request' });
  });

  it("a replayed error names the request that got it: requestId is the replay's X-Request-Id", async () => {
    const headers = { 'idempotency-key': 'create-shop-bad' };
    const bad = { type: 'merchant', name: 'Idem Shop', email: 'idem-bad@example.com', providerId: 'prv_missing' };
    const first = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: bad, headers });
    expect(first.status).toBe(404);
    const second = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: bad, headers });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual({ ...first.body, requestId: second.headers.get('x-request-id') });
    expect(second.body.requestId).not.toBe(first.body.requestId);
  });

  it('refuses a key whose request is still in flight', async () => {
    const key = 'in-flight-1';
    const now = Math.floor(Date.now() / 1000);
    const raw = JSON.stringify(body('idem3@example.com'));
    // What another invocation holding the key looks like in the table.
    await putItem({
      pk: idempotencyPk('operator', 'POST /v1/operator/participants', key),
      sk: 'IDEM',
      status: 'in_progress',
      requestHash: idempotencyRequestHash('/v1/operator/participants', '', '', raw),
      lockedUntil: now + 60,
      expiresAt: now + 3600,
    });
    const r = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, rawBody: raw, headers: { 'idempotency-key': key } });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ statusCode: 409, success: false, message: 'Request with this idempotency key is in progress' });
  });

  it('concurrent requests with one key create one participant; the others replay or see 409 in progress', async () => {
    // Every burst must create exactly one participant, the others replaying it or seeing 409
    // in progress. Whether a burst overlaps depends on the runtime's scheduling (artifacts mode
    // may start each bundle's threads one by one, so a burst can run one after another): up to
    // five bursts, until one shows a request that met another in flight.
    let overlapped = 0;
    for (let burst = 1; burst <= 5 && overlapped === 0; burst++) {
      const headers = { 'idempotency-key': `concurrent-${burst}` };
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: body(`idem4-${burst}@example.com`), headers }),
        ),
      );
      const created = results.filter((r) => r.status === 201);
      const inFlight = results.filter((r) => r.status === 409);
      expect(created.length + inFlight.length).toBe(8);
      expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
      for (const r of inFlight) expect(r.body.message).toBe('Request with this idempotency key is in progress');
      expect(await getItem(participantKey(created[0]!.body.data.id))).toBeDefined();
      overlapped = inFlight.length;
    }
    expect(overlapped).toBeGreaterThan(0);
  });

  it('rejects an empty or over-long Idempotency-Key', async () => {
    for (const k of ['', 'x'.repeat(256)]) {
      const r = await t.call('POST', '/v1/operator/participants', {
        key: t.operatorKey,
        body: body('idem5@example.com'),
        headers: { 'idempotency-key': k },
      });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('Invalid Idempotency-Key header');
    }
  });

  it('replays a stored 4xx too, and does not store 5xx', async () => {
    const headers = { 'idempotency-key': 'bad-body-1' };
    const a = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: { type: 'nope' }, headers });
    const b = await t.call('POST', '/v1/operator/participants', { key: t.operatorKey, body: { type: 'nope' }, headers });
    expect(a.status).toBe(400);
    expect(b.status).toBe(400);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });
});
