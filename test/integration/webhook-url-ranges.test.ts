/**
 * Webhook URL rules in the sandbox stage, release 2 (DESIGN 8.1): the AWS IPv6 metadata
 * address and 169.254/16 (also IPv4-mapped) are refused in every stage; sandbox still accepts
 * http, loopback and the IPv6 ranges only live refuses. The live side is in webhooks-live.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';

let t: TestApp;
let m: { id: string; apiKey: string };

beforeAll(async () => {
  t = await startTestApp();
  m = await t.participant('merchant');
});
afterAll(async () => {
  await t?.stop();
});

const create = (url: string) => t.call('POST', '/v1/webhooks/endpoints', { key: m.apiKey, body: { url } });

describe('sandbox webhook URLs (DESIGN 8.1)', () => {
  it('refuses the AWS IPv6 metadata address and 169.254/16 in any spelling, writing nothing', async () => {
    for (const url of [
      'http://[fd00:ec2::254]/latest/meta-data',
      'http://[fd00:ec2:0:0:0:0:0:254]/',
      'http://[::ffff:169.254.169.254]/latest/meta-data',
      'http://[::ffff:a9fe:a9fe]/',
      'http://169.254.169.254/latest/meta-data',
      'http://169.254.255.255/',
      'https://[64:ff9b::169.254.169.254]/',
    ]) {
      const r = await create(url);
      expect(r.status, url).toBe(400);
      expect(r.body).toMatchObject({
        statusCode: 400,
        success: false,
        message: 'Invalid request parameters',
        code: 'invalid_request_parameters',
      });
      expect(r.body.errors, url).toEqual([{ path: 'url', message: 'must not point to a private, loopback or link-local address' }]);
    }
    const list = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(list.body.data).toEqual({ endpoints: [], total: 0, hasMore: false });
  });

  it('still accepts http, loopback, and the ranges only live refuses', async () => {
    for (const url of [
      'http://127.0.0.1:4000/hook',
      'http://[::1]:4000/hook',
      'http://localhost:4000/hook',
      'http://[fd00:ec2::253]/',
      'http://[64:ff9b::808:808]/',
      'http://[2002:808:808::1]/',
      'http://[2001:0:4136:e378::1]/',
      'http://169.255.0.1/',
    ]) {
      const r = await create(url);
      expect(r.status, url).toBe(201);
      expect((await t.call('DELETE', `/v1/webhooks/endpoints/${r.body.data.id}`, { key: m.apiKey })).status).toBe(200);
    }
  });
});
