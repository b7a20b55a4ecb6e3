import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';

let t: TestApp;
beforeAll(async () => {
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
    const r = await t.call('GET', '/v1/balance/details', { key: 'sk_sandbox_doesnotexist000000000000000000000' });
    expect(r.status).toBe(401);
    expect(r.body.message).toBe('Invalid API key');
  });

  it('rejects a key of the other stage before any lookup', async () => {
    const r = await t.call('GET', '/v1/balance/details', { key: 'sk_live_abc' });
    expect(r.status).toBe(401);
    expect(r.body.message).toBe('API key is not valid for the sandbox environment');
  });

  it('accepts a merchant key and refuses it at once after revocation', async () => {
    const m = await t.participant('merchant');
    const before = await t.call('GET', '/v1/balance/details', { key: m.apiKey });
    expect(before.status).not.toBe(401);
    const created = await t.call('POST', `/v1/operator/participants/${m.id}/keys`, { key: t.operatorKey });
    expect(created.status).toBe(201);
    const { keyId, apiKey } = created.body.data;
    expect(apiKey).toMatch(/^sk_sandbox_/);
    expect((await t.call('GET', '/v1/balance/details', { key: apiKey })).status).not.toBe(401);
    const revoked = await t.call('DELETE', `/v1/operator/keys/${keyId}`, { key: t.operatorKey });
    expect(revoked.status).toBe(200);
    const after = await t.call('GET', '/v1/balance/details', { key: apiKey });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Invalid API key');
    // the first key still works
    expect((await t.call('GET', '/v1/balance/details', { key: m.apiKey })).status).not.toBe(401);
  });
});
