/**
 * People (DESIGN 8.3) on the sandbox stage, with real people signed up and in
 * through the Cognito emulator: application (approved at once) -> owner -> key -> the key calls
 * the API; roles from the route table; invitations and the last-owner rule; key expiry and
 * revocation; the audit log written with each change; isolation between participants.
 */
import { API_VERSION } from '../../functions/platform/api-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyKey, keyIdKey } from '../../functions/identity/participant-store';
import { db } from '../../functions/platform/clients';
import { getItem, table, UpdateCommand } from '../../functions/platform/table';
import { startTestApp, type TestApp } from '../support/app';
import { applicationBody, newEmail, personCaller, signUpAndIn, type SignedIn } from '../support/people';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

/** A person who applied and owns the new merchant (sandbox: approved at once). */
async function owner(type: 'merchant' | 'provider' = 'merchant') {
  const who = await signUpAndIn();
  const as = personCaller(t, who);
  const r = await as('POST', '/v1/onboarding/applications', { body: applicationBody(type) });
  expect(r.status).toBe(201);
  return { who, as, participantId: r.body.data.participantId as string, applicationId: r.body.data.applicationId as string };
}

/** `who` joins `participantId` with `role` through an invitation from `inviter`. */
async function join(inviter: ReturnType<typeof personCaller>, role: string, who?: SignedIn) {
  const person = who ?? (await signUpAndIn());
  const inv = await inviter('POST', '/v1/team/invitations', { body: { email: person.email, role } });
  expect(inv.status).toBe(201);
  const acc = await personCaller(t, person)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`);
  expect(acc.status).toBe(200);
  return person;
}

async function auditActions(as: ReturnType<typeof personCaller>) {
  const r = await as('GET', '/v1/audit-log', { query: { limit: 100 } });
  expect(r.status).toBe(200);
  return r.body.data.entries as {
    action: string;
    target: string;
    actor: { type: string; id: string; email?: string };
    requestId: string;
    ip: string;
  }[];
}

describe('merchant emails stay unique through applications (spec: 409 Merchant with this email already exists)', () => {
  it("an application with another merchant's email is 409 and makes nothing; an applied merchant's email is taken for everyone else", async () => {
    const existing = await t.participant('merchant');
    const who = await signUpAndIn();
    const as = personCaller(t, who);
    const taken = await as('POST', '/v1/onboarding/applications', {
      body: applicationBody('merchant', { email: existing.email.toUpperCase() }),
    });
    expect([taken.status, taken.body.message]).toEqual([409, 'Merchant with this email already exists']);
    // Nothing was made: the person owns nothing and may apply again at once.
    expect((await as('GET', '/v1/me')).body.data.memberships).toEqual([]);

    const body = applicationBody('merchant');
    const applied = await as('POST', '/v1/onboarding/applications', { body });
    expect(applied.status).toBe(201);
    const made = await t.call('POST', '/v1/operator/participants', {
      key: t.operatorKey,
      body: { type: 'merchant', name: 'Copycat Stores', email: body.email },
    });
    expect([made.status, made.body.message]).toEqual([409, 'Merchant with this email already exists']);
    // A provider's email is not a merchant email: a provider application may share it.
    const provider = await personCaller(t, await signUpAndIn())('POST', '/v1/onboarding/applications', {
      body: applicationBody('provider', { email: existing.email }),
    });
    expect(provider.status).toBe(201);
  });
});

describe('application -> owner -> key -> the key calls the API (sandbox)', () => {
  it('a signed-up person applies, is approved at once, creates a key (no authenticator app: optional in the sandbox, DESIGN 10.3), and the key works', async () => {
    const who = await signUpAndIn();
    const as = personCaller(t, who);
    const body = applicationBody('merchant');
    const applied = await as('POST', '/v1/onboarding/applications', { body });
    expect(applied.status).toBe(201);
    expect(applied.body.data).toMatchObject({ status: 'approved', participantId: expect.stringMatching(/^mer_/) });
    const { applicationId, participantId } = applied.body.data;

    const read = await as('GET', `/v1/onboarding/applications/${applicationId}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      applicationId,
      status: 'approved',
      businessName: body.businessName,
      registrationNumber: body.registrationNumber,
      applicantEmail: who.email,
      decidedBy: 'sandbox',
      participantId,
    });

    const members = await as('GET', '/v1/team/members');
    expect(members.status).toBe(200);
    expect(members.body.data.members).toEqual([{ userId: who.sub, email: who.email, role: 'owner', joinedAt: expect.any(String) }]);

    const created = await as('POST', '/v1/keys', { body: { name: 'server', expiresInDays: 30 } });
    expect(created.status).toBe(201);
    const { apiKey, keyId, expiresAt } = created.body.data;
    expect(apiKey).toMatch(/^sk_sandbox_/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(29.9 * 86_400_000);

    const balance = await t.call('GET', '/v1/balance/details', { key: apiKey });
    expect(balance.status).toBe(200);

    const keys = await as('GET', '/v1/keys');
    expect(keys.status).toBe(200);
    const listed = keys.body.data.keys.find((k: { keyId: string }) => k.keyId === keyId);
    expect(listed).toMatchObject({ name: 'server', prefix: apiKey.slice(0, 'sk_sandbox_'.length + 4), expiresAt, revokedAt: null });
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.stringify(keys.body)).not.toContain(apiKey);

    const actions = await auditActions(as);
    expect(actions[0]!.action).toBe('api_key.created');
    // The approval creates the participant and the owner's membership in one transaction (DESIGN 9.1).
    expect(
      actions
        .slice(1)
        .map((e) => e.action)
        .sort(),
    ).toEqual(['application.approved', 'member.joined:owner', 'participant.created']);
    expect(actions[0]).toMatchObject({
      target: keyId,
      actor: { type: 'user', id: who.sub, email: who.email },
      requestId: created.headers.get('x-request-id'),
      ip: expect.any(String),
    });
  });

  it('an API key on a (person) route is 403 `This action requires a signed-in user`; a token on a participant route works', async () => {
    const { as, participantId } = await owner();
    const { apiKey } = (await as('POST', '/v1/keys', { body: {} })).body.data;
    for (const [m, p] of [
      ['GET', '/v1/keys'],
      ['POST', '/v1/keys'],
      ['GET', '/v1/team/members'],
      ['POST', '/v1/team/invitations'],
      ['POST', '/v1/onboarding/applications'],
    ] as const) {
      const r = await t.call(m, p, { key: apiKey, body: m === 'POST' ? {} : undefined });
      expect([r.status, r.body.message], `${m} ${p}`).toEqual([403, 'This action requires a signed-in user']);
    }
    // The operator's key is not a person either.
    expect((await t.call('GET', '/v1/keys', { key: t.operatorKey })).body.message).toBe('This action requires a signed-in user');
    // A person's token reaches participant routes as the participant.
    const eps = await as('GET', '/v1/webhooks/endpoints');
    expect(eps.status).toBe(200);
    // And the audit log accepts the key too (owner/admin routes that are not marked (person)).
    expect((await t.call('GET', '/v1/audit-log', { key: apiKey })).status).toBe(200);
    expect(participantId).toMatch(/^mer_/);
  });

  it('a token that is not a valid access token is 401 with the exact message; a person with no membership is 403', async () => {
    const forged = `${Buffer.from('{"alg":"RS256","kid":"x"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.c2ln`;
    const r = await t.call('GET', '/v1/webhooks/endpoints', { key: forged });
    expect([r.status, r.body.message]).toEqual([401, 'Invalid access token']);
    const nobody = await signUpAndIn();
    const n = await personCaller(t, nobody)('GET', '/v1/webhooks/endpoints');
    expect([n.status, n.body.message]).toEqual([403, 'You are not a member of this participant']);
  });
});

describe('roles (route table)', () => {
  it('a viewer reads but every write is 403 `Insufficient role`; a developer manages keys and webhooks and (sandbox) money writes', async () => {
    const o = await owner();
    const viewer = personCaller(t, await join(o.as, 'viewer'));
    expect((await viewer('GET', '/v1/webhooks/endpoints')).status).toBe(200);
    expect((await viewer('GET', '/v1/events')).status).toBe(200);
    for (const [m, p, body] of [
      ['POST', '/v1/webhooks/endpoints', { url: 'https://example.com/hook' }],
      ['POST', '/v1/keys', {}],
      ['POST', '/v1/refunds/initiate', {}],
      ['GET', '/v1/keys', undefined],
      ['GET', '/v1/team/members', undefined],
      ['GET', '/v1/audit-log', undefined],
    ] as const) {
      const r = await viewer(m, p, { body });
      expect([r.status, r.body.message], `${m} ${p}`).toEqual([403, 'Insufficient role']);
    }
    const dev = personCaller(t, await join(o.as, 'developer'));
    expect((await dev('POST', '/v1/keys', { body: { name: 'ci' } })).status).toBe(201);
    expect((await dev('POST', '/v1/webhooks/endpoints', { body: { url: 'https://example.com/hook' } })).status).toBe(201);
    // Sandbox: a developer's money write passes the role check and meets validation.
    const refund = await dev('POST', '/v1/refunds/initiate', { body: {} });
    expect(refund.status).toBe(400);
    expect([
      (await dev('GET', '/v1/team/members')).status,
      (await dev('POST', '/v1/team/invitations', { body: { email: newEmail(), role: 'viewer' } })).status,
    ]).toEqual([403, 403]);
  });

  it('a person in several participants names one with X-Participant-Id; without it 400; a foreign one 403', async () => {
    const a = await owner();
    const b = await owner();
    await join(b.as, 'admin', a.who);
    const both = personCaller(t, a.who);
    const none = await both('GET', '/v1/webhooks/endpoints');
    expect([none.status, none.body.message]).toEqual([400, 'X-Participant-Id header is required when you belong to several participants']);
    const asB = personCaller(t, a.who, b.participantId);
    const created = await asB('POST', '/v1/webhooks/endpoints', { body: { url: 'https://example.com/b' } });
    expect(created.status).toBe(201);
    // The endpoint is B's: A's list does not have it.
    const aList = await personCaller(t, a.who, a.participantId)('GET', '/v1/webhooks/endpoints');
    expect(aList.body.data.endpoints.map((e: { id: string }) => e.id)).not.toContain(created.body.data.id);
    const c = await owner();
    const foreign = await personCaller(t, a.who, c.participantId)('GET', '/v1/webhooks/endpoints');
    expect([foreign.status, foreign.body.message]).toEqual([403, 'You are not a member of this participant']);
    // B's audit log names A as the actor, with the e-mail A joined with.
    const entries = await auditActions(b.as);
    expect(entries[0]).toMatchObject({
      action: 'webhook_endpoint.created',
      target: created.body.data.id,
      actor: { type: 'user', id: a.who.sub, email: a.who.email },
    });
  });
});

describe('team and invitations', () => {
  it('invitation: the invited e-mail only, once; roles change; the last owner stays; only an owner touches ownership', async () => {
    const o = await owner();
    const invited = await signUpAndIn();
    const stranger = await signUpAndIn();
    const inv = await o.as('POST', '/v1/team/invitations', { body: { email: invited.email, role: 'admin' } });
    expect(inv.status).toBe(201);
    expect(inv.body.data.token).toMatch(/^idpinv_/);
    const token = inv.body.data.token as string;
    const wrong = await personCaller(t, stranger)('POST', `/v1/team/invitations/${token}/accept`);
    expect([wrong.status, wrong.body.message]).toEqual([403, 'This invitation is for another e-mail address']);
    const ok = await personCaller(t, invited)('POST', `/v1/team/invitations/${token}/accept`);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ participantId: o.participantId, participantType: 'merchant', userId: invited.sub, role: 'admin' });
    const again = await personCaller(t, invited)('POST', `/v1/team/invitations/${token}/accept`);
    expect([again.status, again.body.message]).toEqual([404, 'Invitation not found']);
    expect((await personCaller(t, invited)('POST', '/v1/team/invitations/idpinv_unknown/accept')).status).toBe(404);
    // The token is not stored in clear.
    expect(await getItem({ pk: `INVITE#${token}`, sk: 'INVITE' })).toBeUndefined();

    const admin = personCaller(t, invited);
    // The last owner cannot demote or remove themselves.
    const demote = await o.as('PATCH', `/v1/team/members/${o.who.sub}`, { body: { role: 'admin' } });
    expect([demote.status, demote.body.message]).toEqual([409, 'A participant needs at least one owner']);
    const remove = await o.as('DELETE', `/v1/team/members/${o.who.sub}`);
    expect([remove.status, remove.body.message]).toEqual([409, 'A participant needs at least one owner']);
    // An admin cannot touch the owner role.
    const byAdmin = await admin('PATCH', `/v1/team/members/${o.who.sub}`, { body: { role: 'viewer' } });
    expect([byAdmin.status, byAdmin.body.message]).toEqual([403, 'Only an owner can grant, change or remove the owner role']);
    expect((await admin('POST', '/v1/team/invitations', { body: { email: newEmail(), role: 'owner' } })).status).toBe(403);
    expect((await admin('PATCH', `/v1/team/members/${invited.sub}`, { body: { role: 'owner' } })).status).toBe(403);
    // The owner makes the admin an owner; now the first owner may step down, and the second cannot.
    expect((await o.as('PATCH', `/v1/team/members/${invited.sub}`, { body: { role: 'owner' } })).body.data).toMatchObject({
      userId: invited.sub,
      role: 'owner',
    });
    expect((await o.as('PATCH', `/v1/team/members/${o.who.sub}`, { body: { role: 'viewer' } })).status).toBe(200);
    const last = await admin('DELETE', `/v1/team/members/${invited.sub}`);
    expect([last.status, last.body.message]).toEqual([409, 'A participant needs at least one owner']);
    expect((await admin('DELETE', `/v1/team/members/${o.who.sub}`)).body.data).toEqual({
      userId: o.who.sub,
      removed: true,
      keysCreated: [],
    });
    expect((await admin('DELETE', `/v1/team/members/${o.who.sub}`)).body.message).toBe('Member not found');
    const team = await admin('GET', '/v1/team/members');
    expect(team.body.data.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([[invited.sub, 'owner']]);
    // The removed person has no participant any more.
    expect((await o.as('GET', '/v1/webhooks/endpoints')).status).toBe(403);

    const actions = (await auditActions(admin)).map((e) => e.action);
    expect(actions.slice(0, 5)).toEqual([
      'member.removed:viewer',
      'member.role_changed:owner->viewer',
      'member.role_changed:admin->owner',
      'member.joined:admin',
      'invitation.created:admin',
    ]);
    // The approval's one transaction: any order.
    expect(actions.slice(5).sort()).toEqual(['application.approved', 'member.joined:owner', 'participant.created']);
  });

  it('the team pages newest member first (DESIGN 8): limit, startingAfter, hasMore', async () => {
    const o = await owner();
    const first = await join(o.as, 'viewer');
    const second = await join(o.as, 'developer');
    const third = await join(o.as, 'admin');
    const ids = (r: { body: { data: { members: { userId: string }[] } } }) => r.body.data.members.map((m) => m.userId);
    const all = await o.as('GET', '/v1/team/members');
    expect(ids(all)).toEqual([third.sub, second.sub, first.sub, o.who.sub]);
    const page1 = await o.as('GET', '/v1/team/members', { query: { limit: 2 } });
    expect([ids(page1), page1.body.data.hasMore]).toEqual([[third.sub, second.sub], true]);
    const page2 = await o.as('GET', '/v1/team/members', { query: { limit: 2, startingAfter: second.sub } });
    expect([ids(page2), page2.body.data.hasMore]).toEqual([[first.sub, o.who.sub], false]);
  });

  it('two owners demoting each other at once: exactly one succeeds', async () => {
    const o = await owner();
    const second = await join(o.as, 'owner');
    const [a, b] = await Promise.all([
      o.as('PATCH', `/v1/team/members/${second.sub}`, { body: { role: 'admin' } }),
      personCaller(t, second)('PATCH', `/v1/team/members/${o.who.sub}`, { body: { role: 'admin' } }),
    ]);
    // The loser is refused: 409 (last owner) if it raced, 403 (no longer an owner) if it came after.
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const team = await (a.status === 200 ? o.as : personCaller(t, second))('GET', '/v1/team/members');
    expect(team.body.data.members.filter((m: { role: string }) => m.role === 'owner')).toHaveLength(1);
  });
});

describe('keys: expiry and revocation', () => {
  it("an expired key is 401 `API key has expired`; a revoked key is 401 at once; another participant's key is 404", async () => {
    const o = await owner();
    const k = (await o.as('POST', '/v1/keys', { body: { expiresInDays: 1 } })).body.data;
    expect((await t.call('GET', '/v1/balance/details', { key: k.apiKey })).status).toBe(200);
    // A day passes: the key's stored expiry is moved into the past (the clock, not the key, is what the test changes).
    const ref = await getItem<{ hash: string }>(keyIdKey(k.keyId));
    const past = new Date(Date.now() - 1000).toISOString();
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: apiKeyKey(ref!.hash),
        UpdateExpression: 'SET keyExpiresAt = :p',
        ExpressionAttributeValues: { ':p': past },
      }),
    );
    const expired = await t.call('GET', '/v1/balance/details', { key: k.apiKey });
    expect([expired.status, expired.body.message]).toEqual([401, 'API key has expired']);

    const k2 = (await o.as('POST', '/v1/keys', { body: { name: 'old' } })).body.data;
    expect(k2.expiresAt).toBeNull();
    const other = await owner();
    const foreign = await other.as('DELETE', `/v1/keys/${k2.keyId}`);
    expect([foreign.status, foreign.body.message]).toEqual([404, 'Key not found']);
    expect((await t.call('GET', '/v1/balance/details', { key: k2.apiKey })).status).toBe(200);
    const revoked = await o.as('DELETE', `/v1/keys/${k2.keyId}`);
    expect(revoked.status).toBe(200);
    const refused = await t.call('GET', '/v1/balance/details', { key: k2.apiKey });
    expect([refused.status, refused.body.message]).toEqual([401, 'Invalid API key']);
    // Revoking again answers the first revocation.
    expect((await o.as('DELETE', `/v1/keys/${k2.keyId}`)).body.data.revokedAt).toBe(revoked.body.data.revokedAt);
    const listed = (await o.as('GET', '/v1/keys')).body.data.keys.find((x: { keyId: string }) => x.keyId === k2.keyId);
    expect(listed.revokedAt).toBe(revoked.body.data.revokedAt);
    const actions = (await auditActions(o.as)).map((e) => `${e.action} ${e.target}`);
    expect(actions.slice(0, 3)).toEqual([`api_key.revoked ${k2.keyId}`, `api_key.created ${k2.keyId}`, `api_key.created ${k.keyId}`]);
  });

  it('keys page with startingAfter; a foreign key id as startingAfter is 400', async () => {
    const o = await owner();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await o.as('POST', '/v1/keys', { body: { name: `k${i}` } })).body.data.keyId);
    const p1 = await o.as('GET', '/v1/keys', { query: { limit: 2 } });
    expect(p1.body.data.keys.map((k: { keyId: string }) => k.keyId)).toEqual([ids[2], ids[1]]);
    expect(p1.body.data.hasMore).toBe(true);
    const p2 = await o.as('GET', '/v1/keys', { query: { limit: 2, startingAfter: ids[1]! } });
    expect(p2.body.data).toEqual({ keys: [expect.objectContaining({ keyId: ids[0] })], hasMore: false });
    const other = await owner();
    const bad = await other.as('GET', '/v1/keys', { query: { startingAfter: ids[0]! } });
    expect(bad.status).toBe(400);
  });

  it('bad input writes nothing and gets the exact message', async () => {
    const o = await owner();
    for (const body of [{ expiresInDays: 0 }, { expiresInDays: 1.5 }, { name: '' }, { extra: 1 }]) {
      const r = await o.as('POST', '/v1/keys', { body });
      expect([r.status, r.body.message], JSON.stringify(body)).toEqual([400, 'Invalid request parameters']);
    }
    const bad = await o.as('POST', '/v1/team/invitations', { body: { email: 'not-an-email', role: 'admin' } });
    expect(bad.status).toBe(400);
    expect((await o.as('POST', '/v1/team/invitations', { body: { email: newEmail(), role: 'superuser' } })).status).toBe(400);
    expect((await o.as('POST', '/v1/onboarding/applications', { body: applicationBody('merchant', { type: 'bank' }) })).status).toBe(400);
    expect((await o.as('GET', '/v1/keys')).body.data.keys).toEqual([]);
    expect((await auditActions(o.as)).map((e) => e.action).sort()).toEqual([
      'application.approved',
      'member.joined:owner',
      'participant.created',
    ]);
  });

  it('an Idempotency-Key replays the same key to the same person, sealed at rest', async () => {
    const o = await owner();
    const headers = { 'idempotency-key': 'create-key-1' };
    const a = await o.as('POST', '/v1/keys', { body: { name: 'once' }, headers });
    const b = await o.as('POST', '/v1/keys', { body: { name: 'once' }, headers });
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.data).toEqual(a.body.data);
    expect((await o.as('GET', '/v1/keys')).body.data.keys).toHaveLength(1);
  });
});

describe('isolation between participants', () => {
  it("another participant's application, key and member are 404", async () => {
    const a = await owner();
    const b = await owner();
    const r = await b.as('GET', `/v1/onboarding/applications/${a.applicationId}`);
    expect([r.status, r.body.message]).toEqual([404, 'Application not found']);
    const m = await b.as('PATCH', `/v1/team/members/${a.who.sub}`, { body: { role: 'viewer' } });
    expect([m.status, m.body.message]).toEqual([404, 'Member not found']);
    expect((await b.as('DELETE', `/v1/team/members/${a.who.sub}`)).status).toBe(404);
    expect((await a.as('GET', '/v1/team/members')).body.data.members).toHaveLength(1);
    const ak = (await a.as('POST', '/v1/keys', { body: {} })).body.data;
    expect((await b.as('DELETE', `/v1/keys/${ak.keyId}`)).status).toBe(404);
    expect((await b.as('GET', '/v1/keys')).body.data.keys.map((k: { keyId: string }) => k.keyId)).not.toContain(ak.keyId);
    expect((await b.as('GET', '/v1/audit-log')).body.data.entries.map((e: { target: string }) => e.target)).not.toContain(ak.keyId);
  });
});

describe('GET /v1/me: who a token is and what they may act for', () => {
  it('no membership -> []; after approval the owner membership; a second participant by invitation; API keys refused', async () => {
    const who = await signUpAndIn();
    const as = personCaller(t, who);
    const before = await as('GET', '/v1/me');
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ statusCode: 200, success: true, message: 'Profile retrieved' });
    expect(before.body.data).toEqual({ userId: who.sub, email: null, memberships: [] });

    const body = applicationBody('merchant');
    const applied = await as('POST', '/v1/onboarding/applications', { body });
    const merchantId = applied.body.data.participantId as string;
    const after = await as('GET', '/v1/me');
    expect(after.body.data.memberships).toEqual([
      {
        participantId: merchantId,
        name: body.businessName,
        kind: 'merchant',
        role: 'owner',
        joinedAt: expect.any(String),
        apiVersion: API_VERSION,
      },
    ]);

    // Invited to another participant as a viewer: both listed, each with its own role.
    const other = await owner('provider');
    const inv = await other.as('POST', '/v1/team/invitations', { body: { email: who.email, role: 'viewer' } });
    expect((await as('POST', `/v1/team/invitations/${inv.body.data.token}/accept`)).status).toBe(200);
    const both = await as('GET', '/v1/me');
    expect(both.body.data.email).toBe(who.email);
    expect(
      new Map(
        both.body.data.memberships.map((m: { participantId: string; role: string; kind: string }) => [
          m.participantId,
          `${m.kind}:${m.role}`,
        ]),
      ),
    ).toEqual(
      new Map([
        [merchantId, 'merchant:owner'],
        [other.participantId, 'provider:viewer'],
      ]),
    );

    // Another person sees only their own.
    expect((await other.as('GET', '/v1/me')).body.data.memberships.map((m: { participantId: string }) => m.participantId)).toEqual([
      other.participantId,
    ]);
    const key = await t.participant('merchant');
    const refused = await t.call('GET', '/v1/me', { key: key.apiKey });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('This action requires a signed-in user');
  });
});
