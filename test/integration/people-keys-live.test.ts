/**
 * Keys carry a role (DESIGN 9.1), on the live stage where roles bite hardest: a developer's
 * key moves no money, a viewer's key only reads, nobody makes a key above their own role, a
 * key says who made it, removing a member names their keys (which keep working), and keys
 * made before roles act as admin. Also: one pending application per person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyKey, keyIdKey } from '../../functions/identity/participant-store';
import { db } from '../../functions/platform/clients';
import { getItem, table, UpdateCommand } from '../../functions/platform/table';
import { routesFor } from '../../functions/routes';
import { startTestApp, type TestApp } from '../support/app';
import { applicationBody, newEmail, personCaller, signUpAndIn } from '../support/people';

let t: TestApp;
let merchantId: string;
let operatorKeyOfMerchant: string;
let owner: ReturnType<typeof personCaller>;
let developer: ReturnType<typeof personCaller>;
let developerSub: string;
let developerEmail: string;

const op = (method: string, path: string, opts: { body?: unknown } = {}) => t.call(method, path, { ...opts, key: t.operatorKey });

/** `email`'s person signs up (with an authenticator app: `mfa`) and accepts the invitation `token`. */
async function accept(token: string, email?: string, mfa = false) {
  const who = await signUpAndIn({ ...(email ? { email } : {}), mfa });
  const r = await personCaller(t, who)('POST', `/v1/team/invitations/${token}/accept`);
  expect(r.status).toBe(200);
  return who;
}

beforeAll(async () => {
  t = await startTestApp({ STAGE: 'live' });
  const ownerEmail = newEmail('owner');
  const created = await op('POST', '/v1/operator/participants', {
    body: { type: 'merchant', name: 'Live Shop', email: newEmail('shop'), ownerEmail },
  });
  expect(created.status).toBe(201);
  merchantId = created.body.data.id;
  operatorKeyOfMerchant = created.body.data.apiKey;
  // A live owner: their authenticator app is on (DESIGN 10.3).
  const ownerWho = await accept(created.body.data.invitation.token, ownerEmail, true);
  owner = personCaller(t, ownerWho);
  const devEmail = newEmail('dev');
  const inv = await owner('POST', '/v1/team/invitations', { body: { email: devEmail, role: 'developer' } });
  expect(inv.status).toBe(201);
  const devWho = await accept(inv.body.data.token, devEmail);
  developer = personCaller(t, devWho);
  developerSub = devWho.sub;
  developerEmail = devEmail;
});
afterAll(async () => {
  await t?.stop();
});

const payBody = { lookupPhrases: ['lp_unknown_phrase'], amount: 1500, currency: 'NGN', description: 'Live order' };

describe('keys with a role (live)', () => {
  it("a developer's key is a developer key: it reads and configures but moves no money (pay, bill, refund: 403)", async () => {
    const made = await developer('POST', '/v1/keys', { body: { name: 'dev laptop' } });
    expect(made.status).toBe(201);
    expect(made.body.data.role).toBe('developer');
    const key = made.body.data.apiKey as string;
    for (const [path, body] of [
      ['/v1/customer/pay', payBody],
      ['/v1/customer/bill', { agreementPhrases: ['ap_x'], amount: 1500, currency: 'NGN', description: 'x' }],
      ['/v1/refunds/initiate', { reference: 'txn_unknown' }],
    ] as const) {
      const r = await t.call('POST', path, { key, body });
      expect([r.status, r.body.message], path).toEqual([403, 'Insufficient role']);
    }
    expect((await t.call('GET', '/v1/balance/details', { key })).status).toBe(200);
    const policy = await t.call('PUT', '/v1/merchant/retry-policy', { key, body: { retryAfterDays: [1, 2] } });
    expect(policy.status).toBe(200);
    // The owner's key (admin by default) is not refused on the same call: the refusal is the role's.
    const ownerKey = await owner('POST', '/v1/keys', { body: { name: 'server' } });
    expect(ownerKey.body.data.role).toBe('admin');
    const pay = await t.call('POST', '/v1/customer/pay', { key: ownerKey.body.data.apiKey, body: payBody });
    expect(pay.status).not.toBe(403);
  });

  it('nobody makes a key above their own role: a developer asking for admin is 403; viewer is allowed', async () => {
    const admin = await developer('POST', '/v1/keys', { body: { role: 'admin' } });
    expect([admin.status, admin.body.message]).toEqual([403, 'Insufficient role']);
    const viewer = await developer('POST', '/v1/keys', { body: { role: 'viewer' } });
    expect([viewer.status, viewer.body.data.role]).toEqual([201, 'viewer']);
    const bad = await owner('POST', '/v1/keys', { body: { role: 'owner' } });
    expect([bad.status, bad.body.message]).toEqual([400, 'Invalid request parameters']);
  });

  it("a viewer key is refused on every write of the merchant's routes (403 Insufficient role) and reads", async () => {
    const made = await owner('POST', '/v1/keys', { body: { name: 'dashboard reader', role: 'viewer' } });
    expect(made.body.data.role).toBe('viewer');
    const key = made.body.data.apiKey as string;
    const writes = routesFor('live').filter((r) => r.method !== 'GET' && r.kinds.includes('merchant') && !r.caller);
    expect(writes.length).toBeGreaterThan(15);
    for (const r of writes) {
      const path = r.path.replace(/\{[^}]+\}/g, 'x_unknown');
      const res = await t.call(r.method, path, { key, body: {} });
      expect([res.status, res.body.message], `${r.method} ${r.path}`).toEqual([403, 'Insufficient role']);
    }
    expect((await t.call('GET', '/v1/transaction-history', { key })).status).toBe(200);
    expect((await t.call('GET', '/v1/webhooks/endpoints', { key })).status).toBe(200);
  });

  it("GET /v1/keys says each key's role and who made it (null for the operator's)", async () => {
    const r = await owner('GET', '/v1/keys', { query: { limit: 100 } });
    expect(r.status).toBe(200);
    const keys = r.body.data.keys as {
      keyId: string;
      role: string;
      createdBy: { userId: string; email: string | null } | null;
      prefix: string;
    }[];
    const operators = keys.filter((k) => k.createdBy === null);
    expect(operators).toHaveLength(1);
    expect(operators[0]).toMatchObject({ role: 'admin', prefix: operatorKeyOfMerchant.slice(0, operators[0]!.prefix.length) });
    const devs = keys.filter((k) => k.createdBy?.userId === developerSub);
    expect(devs.length).toBeGreaterThanOrEqual(2);
    for (const k of devs) expect(k.createdBy).toEqual({ userId: developerSub, email: developerEmail });
    expect(devs.map((k) => k.role).sort()).toEqual(expect.arrayContaining(['developer', 'viewer']));
  });

  it('removing a member answers the keys they made that still work; those keys keep working until revoked', async () => {
    const before = await developer('POST', '/v1/keys', { body: { name: 'to outlive its maker' } });
    const revoked = await developer('POST', '/v1/keys', { body: { name: 'revoked' } });
    expect((await developer('DELETE', `/v1/keys/${revoked.body.data.keyId}`)).status).toBe(200);
    const list = (await owner('GET', '/v1/keys', { query: { limit: 100 } })).body.data.keys as {
      keyId: string;
      revokedAt: string | null;
      createdBy: { userId: string } | null;
    }[];
    const expected = list.filter((k) => k.createdBy?.userId === developerSub && !k.revokedAt).map((k) => k.keyId);
    expect(expected).toContain(before.body.data.keyId);
    expect(expected).not.toContain(revoked.body.data.keyId);
    const removed = await owner('DELETE', `/v1/team/members/${developerSub}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data.userId).toBe(developerSub);
    expect(removed.body.data.removed).toBe(true);
    expect([...removed.body.data.keysCreated].sort()).toEqual([...expected].sort());
    expect((await t.call('GET', '/v1/balance/details', { key: before.body.data.apiKey })).status).toBe(200);
    expect((await owner('DELETE', `/v1/keys/${before.body.data.keyId}`)).status).toBe(200);
    expect((await t.call('GET', '/v1/balance/details', { key: before.body.data.apiKey })).status).toBe(401);
  });

  it('a key made before roles (no role stored) acts as admin and is listed as admin', async () => {
    const made = await owner('POST', '/v1/keys', { body: { name: 'legacy', role: 'viewer' } });
    const ref = await getItem<{ hash: string }>(keyIdKey(made.body.data.keyId));
    for (const key of [keyIdKey(made.body.data.keyId), apiKeyKey(ref!.hash)]) {
      await db().send(
        new UpdateCommand({ TableName: table(), Key: key, UpdateExpression: 'REMOVE #r', ExpressionAttributeNames: { '#r': 'role' } }),
      );
    }
    const pay = await t.call('POST', '/v1/customer/pay', { key: made.body.data.apiKey, body: payBody });
    expect(pay.status).not.toBe(403);
    const listed = (await owner('GET', '/v1/keys', { query: { limit: 100 } })).body.data.keys.find(
      (k: { keyId: string }) => k.keyId === made.body.data.keyId,
    );
    expect(listed.role).toBe('admin');
  });

  it('the operator-created participant and its key are in its audit log, by the operator', async () => {
    const log = (await owner('GET', '/v1/audit-log', { query: { limit: 100 } })).body.data.entries as {
      action: string;
      target: string;
      actor: { type: string };
    }[];
    const byOperator = log
      .filter((e) => e.actor.type === 'operator')
      .map((e) => e.action)
      .sort();
    expect(byOperator).toEqual(['api_key.created', 'invitation.created:owner', 'participant.created']);
    expect(log.find((e) => e.action === 'participant.created')!.target).toBe(merchantId);
  });
});

describe('one pending application per person (live)', () => {
  it('a second application while one is pending is 409; once decided, the person may apply again', async () => {
    const who = await signUpAndIn();
    const as = personCaller(t, who);
    const first = await as('POST', '/v1/onboarding/applications', { body: applicationBody('merchant') });
    expect([first.status, first.body.data.status]).toEqual([201, 'pending']);
    // Another browser, the same person: the same answer however it is sent.
    const again = await Promise.all([1, 2].map(() => as('POST', '/v1/onboarding/applications', { body: applicationBody('provider') })));
    for (const r of again) expect([r.status, r.body.message]).toEqual([409, 'An application is already pending']);
    const pending = await op('GET', '/v1/operator/applications?status=pending');
    expect(pending.body.data.applications.filter((a: { applicantEmail?: string }) => a.applicantEmail === who.email)).toHaveLength(1);
    const rejected = await op('POST', `/v1/operator/applications/${first.body.data.applicationId}/reject`, {
      body: { reason: 'Incomplete' },
    });
    expect(rejected.status).toBe(200);
    const later = await as('POST', '/v1/onboarding/applications', { body: applicationBody('merchant') });
    expect([later.status, later.body.data.status]).toEqual([201, 'pending']);
  });
});
