/**
 * People on the live stage (DESIGN 8.3): an application waits for the operator, who
 * approves or rejects it (recorded with who and when); banks come in through the operator's
 * `ownerEmail` invitation; a developer may not move live money; trust changes are audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { sleep } from '../../functions/platform/retry';
import { applicationBody, newEmail, personCaller, signIn, signUpAndIn, turnOffTotp, turnOnTotp, type SignedIn } from '../support/people';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ STAGE: 'live' });
});
afterAll(async () => {
  await t?.stop();
});

const op = (method: string, path: string, opts: { body?: unknown; query?: Record<string, string | number> } = {}) =>
  t.call(method, path, { ...opts, key: t.operatorKey });

describe('live approval keeps merchant emails unique', () => {
  it("approving a merchant application whose email a merchant took meanwhile is 409; it stays pending; an approved one's email is taken", async () => {
    const email = newEmail('shop');
    const first = await personCaller(t, await signUpAndIn())('POST', '/v1/onboarding/applications', {
      body: applicationBody('merchant', { email }),
    });
    const second = await personCaller(t, await signUpAndIn())('POST', '/v1/onboarding/applications', {
      body: applicationBody('merchant', { email }),
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    const a = first.body.data.applicationId as string;
    const b = second.body.data.applicationId as string;

    expect((await op('POST', `/v1/operator/applications/${a}/approve`)).status).toBe(200);
    const refused = await op('POST', `/v1/operator/applications/${b}/approve`);
    expect([refused.status, refused.body.message]).toEqual([409, 'Merchant with this email already exists']);
    const pending = (await op('GET', '/v1/operator/applications', { query: { status: 'pending', limit: 100 } })).body.data.applications;
    expect(pending.find((x: { applicationId: string }) => x.applicationId === b)).toMatchObject({ status: 'pending' });
    // The operator can still reject it.
    expect(
      (await op('POST', `/v1/operator/applications/${b}/reject`, { body: { reason: 'Email belongs to another merchant' } })).status,
    ).toBe(200);

    const made = await op('POST', '/v1/operator/participants', { body: { type: 'merchant', name: 'Copycat Stores', email } });
    expect([made.status, made.body.message]).toEqual([409, 'Merchant with this email already exists']);
  });
});

describe('applications wait for the operator in live', () => {
  it('pending -> listed -> approved: the participant exists, the applicant owns it, the key calls the API', async () => {
    // An owner in live: their authenticator app is on (DESIGN 10.3).
    const who = await signUpAndIn({ mfa: true });
    const as = personCaller(t, who);
    const body = applicationBody('provider');
    const applied = await as('POST', '/v1/onboarding/applications', { body });
    expect(applied.status).toBe(201);
    expect(applied.body.data).toEqual({ applicationId: expect.stringMatching(/^app_/), status: 'pending', participantId: null });
    const id = applied.body.data.applicationId as string;
    // Not a member of anything yet.
    expect((await as('POST', '/v1/keys', { body: {} })).body.message).toBe('You are not a member of this participant');

    const queue = await op('GET', '/v1/operator/applications', { query: { status: 'pending', limit: 100 } });
    expect(queue.status).toBe(200);
    expect(queue.body.data.applications.find((a: { applicationId: string }) => a.applicationId === id)).toMatchObject({
      status: 'pending',
      type: 'provider',
      businessName: body.businessName,
      address: body.address,
      applicantEmail: who.email,
    });

    const approved = await op('POST', `/v1/operator/applications/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({
      applicationId: id,
      status: 'approved',
      decidedBy: 'operator',
      decidedAt: expect.any(String),
      participantId: expect.stringMatching(/^prv_/),
    });
    const again = await op('POST', `/v1/operator/applications/${id}/approve`);
    expect([again.status, again.body.message]).toEqual([409, 'Application has already been decided']);
    expect(
      (await op('GET', '/v1/operator/applications', { query: { status: 'pending', limit: 100 } })).body.data.applications.map(
        (a: { applicationId: string }) => a.applicationId,
      ),
    ).not.toContain(id);

    expect((await as('GET', `/v1/onboarding/applications/${id}`)).body.data.status).toBe('approved');
    const key = await as('POST', '/v1/keys', { body: { name: 'prod' } });
    expect(key.status).toBe(201);
    expect(key.body.data.apiKey).toMatch(/^sk_live_/);
    expect((await t.call('GET', '/v1/provider/merchants', { key: key.body.data.apiKey })).status).toBe(200);
    const log = (await as('GET', '/v1/audit-log')).body.data.entries;
    expect(log[0].action).toBe('api_key.created');
    // The approval creates the participant and the owner's membership in one transaction (DESIGN 9.1).
    expect(
      log
        .slice(1)
        .map((e: { action: string }) => e.action)
        .sort(),
    ).toEqual(['application.approved', 'member.joined:owner', 'participant.created']);
    for (const e of log.slice(1)) expect(e.actor).toEqual({ type: 'operator', id: 'operator' });
  });

  it('rejected with a reason the applicant reads; unknown ids are 404; bad input is 400', async () => {
    const who = await signUpAndIn();
    const as = personCaller(t, who);
    const id = (await as('POST', '/v1/onboarding/applications', { body: applicationBody() })).body.data.applicationId;
    const bad = await op('POST', `/v1/operator/applications/${id}/reject`, { body: {} });
    expect(bad.status).toBe(400);
    const rejected = await op('POST', `/v1/operator/applications/${id}/reject`, { body: { reason: 'Registration number not found' } });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', reason: 'Registration number not found', participantId: null });
    expect((await as('GET', `/v1/onboarding/applications/${id}`)).body.data).toMatchObject({
      status: 'rejected',
      reason: 'Registration number not found',
    });
    expect((await op('POST', `/v1/operator/applications/${id}/approve`)).status).toBe(409);
    const unknown = await op('POST', '/v1/operator/applications/app_unknown/approve');
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Application not found']);
    expect(
      (await op('GET', '/v1/operator/applications', { query: { status: 'rejected', limit: 100 } })).body.data.applications.map(
        (a: { applicationId: string }) => a.applicationId,
      ),
    ).toContain(id);
    // A person cannot use the operator's routes.
    expect((await as('GET', '/v1/operator/applications')).status).toBe(403);
  });
});

describe('banks through the operator; roles in live', () => {
  it("the operator's ownerEmail invites the bank's owner; a developer cannot move live money but manages keys", async () => {
    const bankOwner = await signUpAndIn({ mfa: true });
    const created = await op('POST', '/v1/operator/participants', {
      body: { type: 'bank', name: 'First Bank', email: newEmail('bank'), ownerEmail: bankOwner.email },
    });
    expect(created.status).toBe(201);
    const { token } = created.body.data.invitation;
    expect(token).toMatch(/^idpinv_/);
    const joined = await personCaller(t, bankOwner)('POST', `/v1/team/invitations/${token}/accept`);
    expect(joined.body.data).toMatchObject({ participantId: created.body.data.id, participantType: 'bank', role: 'owner' });
    const bank = personCaller(t, bankOwner);
    expect((await bank('GET', '/v1/bank/customer-decisions')).status).toBe(200);

    const dev = await signUpAndIn();
    const inv = await bank('POST', '/v1/team/invitations', { body: { email: dev.email, role: 'developer' } });
    await personCaller(t, dev)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`);
    const asDev = personCaller(t, dev);
    const money = await asDev('POST', '/v1/bank/customers', { body: { customers: [] } });
    expect([money.status, money.body.message]).toEqual([403, 'Insufficient role']);
    expect((await asDev('POST', '/v1/billing/bank-response', { body: {} })).body.message).toBe('Insufficient role');
    expect((await asDev('POST', '/v1/keys', { body: { name: 'dev' } })).status).toBe(201);
    expect((await asDev('GET', '/v1/bank/customer-decisions')).status).toBe(200);
    const actions = (await bank('GET', '/v1/audit-log')).body.data.entries.map((e: { action: string }) => e.action);
    expect(actions.slice(0, 4)).toEqual([
      'api_key.created',
      'member.joined:developer',
      'invitation.created:developer',
      'member.joined:owner',
    ]);
    // Written in one transaction (the same instant): any order. The operator's key is in it (DESIGN 9.1).
    expect(actions.slice(4).sort()).toEqual(['api_key.created', 'invitation.created:owner', 'participant.created']);
  });

  it("trust changes are in the audit log of the participant that made them, and a merchant's in its own too", async () => {
    const provider = await op('POST', '/v1/operator/participants', { body: { type: 'provider', name: 'PSP', email: newEmail('psp') } });
    const pKey = provider.body.data.apiKey as string;
    const merchants = await t.call('POST', '/v1/provider/merchants', {
      key: pKey,
      body: { merchants: [{ name: 'Shop', email: newEmail('shop') }] },
    });
    const merchantId = merchants.body.data.merchants[0].id ?? merchants.body.data.merchants[0].entityId;
    const upd = await t.call('PATCH', '/v1/provider/merchant/trust', { key: pKey, body: { entityId: merchantId, trusted: true } });
    expect(upd.status).toBe(200);
    const max = await op('PATCH', `/v1/operator/providers/${provider.body.data.id}`, { body: { maxTrustLevel: 'premium' } });
    expect(max.status).toBe(200);
    const log = (await t.call('GET', '/v1/audit-log', { key: pKey })).body.data.entries;
    const pairs = log.map((e: { action: string; target: string }) => [e.action, e.target]);
    expect(pairs.slice(0, 2)).toEqual([
      ['provider.max_trust_level_updated', provider.body.data.id],
      ['merchant.trust_updated', merchantId],
    ]);
    // The operator created the provider and its first key in one transaction: any order.
    expect(
      pairs
        .slice(2)
        .map(([a]: string[]) => a)
        .sort(),
    ).toEqual(['api_key.created', 'participant.created']);
    expect(log[1].actor).toMatchObject({ type: 'apiKey', id: expect.stringMatching(/^key_/) });
    // The merchant's own log has it too, by the provider's key.
    const own = (await t.call('GET', '/v1/audit-log', { key: merchants.body.data.merchants[0].apiKey })).body.data.entries;
    expect(own[0]).toMatchObject({
      action: 'merchant.trust_updated',
      target: merchantId,
      actor: log[1].actor,
      requestId: log[1].requestId,
    });
  });
});

describe('two-factor authentication, enforced by the API in live (DESIGN 10.3)', () => {
  /** A merchant the operator creates; `ownerEmail`'s person joins as its owner (accepting needs no role yet). */
  async function ownedMerchant(owner: SignedIn) {
    const created = await op('POST', '/v1/operator/participants', {
      body: { type: 'merchant', name: 'Two Factor Stores', email: newEmail('shop'), ownerEmail: owner.email },
    });
    expect(created.status).toBe(201);
    const joined = await personCaller(t, owner)('POST', `/v1/team/invitations/${created.body.data.invitation.token}/accept`);
    expect(joined.status).toBe(200);
    return created.body.data.id as string;
  }
  const refusedForMfa = (r: { status: number; body: { message: string; code: string } }) => [r.status, r.body.message, r.body.code];
  const MFA_REFUSAL = [403, 'Set up two-factor authentication first', 'mfa_required'];

  it('an owner or admin without an authenticator app is refused on keys, team, money and reads; GET /v1/me and sign-out answer; once it is set up, the same token works', async () => {
    const owner = await signUpAndIn();
    const merchantId = await ownedMerchant(owner);
    const as = personCaller(t, owner);
    for (const [method, path, body] of [
      ['POST', '/v1/keys', { name: 'stolen password' }],
      ['POST', '/v1/team/invitations', { email: newEmail('accomplice'), role: 'admin' }],
      ['POST', '/v1/customer/pay', { lookupPhrases: ['lp_x'], amount: 1500, currency: 'NGN', description: 'x' }],
      ['POST', '/v1/webhooks/endpoints', { url: 'https://attacker.example.com/hook' }],
      ['GET', '/v1/transaction-history', undefined],
      ['GET', '/v1/audit-log', undefined],
    ] as const) {
      expect(refusedForMfa(await as(method, path, body ? { body } : {})), `${method} ${path}`).toEqual(MFA_REFUSAL);
    }
    // Nothing was made.
    expect(
      (
        await t.call('GET', '/v1/webhooks/endpoints', {
          key: (await op('POST', `/v1/operator/participants/${merchantId}/keys`)).body.data.apiKey,
        })
      ).body.data.endpoints,
    ).toEqual([]);
    const me = await as('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.data.memberships).toEqual([expect.objectContaining({ participantId: merchantId, role: 'owner' })]);
    // Another session of theirs signs out.
    const other = { ...owner, ...(await signIn(owner.email, owner.password)) };
    const out = await personCaller(t, other)('POST', '/v1/me/sign-out', { body: { refreshToken: other.refreshToken } });
    expect([out.status, out.body.data]).toEqual([200, { signedOut: true, refreshTokenRevoked: true }]);

    // The authenticator app on: the same access token works at once (a refusal is never cached).
    await turnOnTotp(owner);
    const key = await as('POST', '/v1/keys', { body: { name: 'server' } });
    expect(key.status).toBe(201);

    // An admin is refused too; a developer is not (live requires it of owners and admins).
    const admin = await signUpAndIn();
    const developer = await signUpAndIn();
    for (const [who, role] of [
      [admin, 'admin'],
      [developer, 'developer'],
    ] as const) {
      const inv = await as('POST', '/v1/team/invitations', { body: { email: who.email, role } });
      expect((await personCaller(t, who)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`)).status).toBe(200);
    }
    expect(refusedForMfa(await personCaller(t, admin)('POST', '/v1/keys', { body: {} }))).toEqual(MFA_REFUSAL);
    expect((await personCaller(t, developer)('POST', '/v1/keys', { body: {} })).status).toBe(201);
  });

  it("the sign-in is the person's: an admin somewhere without an authenticator app is refused while acting as a viewer elsewhere, and cannot join more", async () => {
    const firstOwner = await signUpAndIn({ mfa: true });
    const secondOwner = await signUpAndIn({ mfa: true });
    const first = await ownedMerchant(firstOwner);
    const second = await ownedMerchant(secondOwner);
    const person = await signUpAndIn();
    const invite = async (inviter: SignedIn, participantId: string, role: string) =>
      (await personCaller(t, inviter, participantId)('POST', '/v1/team/invitations', { body: { email: person.email, role } })).body.data
        .token as string;
    // A viewer of the first merchant (no required role yet: accepted), then an admin of the second.
    const asViewer = await invite(firstOwner, first, 'viewer');
    expect((await personCaller(t, person)('POST', `/v1/team/invitations/${asViewer}/accept`)).status).toBe(200);
    const asAdmin = await invite(secondOwner, second, 'admin');
    expect((await personCaller(t, person)('POST', `/v1/team/invitations/${asAdmin}/accept`)).status).toBe(200);
    expect(refusedForMfa(await personCaller(t, person, first)('GET', '/v1/transaction-history'))).toEqual(MFA_REFUSAL);
    expect(refusedForMfa(await personCaller(t, person, second)('GET', '/v1/transaction-history'))).toEqual(MFA_REFUSAL);
    const third = await invite(firstOwner, await ownedMerchant(firstOwner), 'developer');
    expect(refusedForMfa(await personCaller(t, person)('GET', `/v1/invitations/${third}`))).toEqual(MFA_REFUSAL);
    expect(refusedForMfa(await personCaller(t, person)('POST', `/v1/team/invitations/${third}/accept`))).toEqual(MFA_REFUSAL);
  });

  it('turning the authenticator app off at Cognito: refused once the cache bound passes (MFA_CACHE_SECONDS, at most 60)', async () => {
    const owner = await signUpAndIn({ mfa: true });
    await ownedMerchant(owner);
    const as = personCaller(t, owner);
    await t.app.updateEnvironment({ MFA_CACHE_SECONDS: '0.5' });
    try {
      expect((await as('POST', '/v1/keys', { body: {} })).status).toBe(201);
      // With their own token, outside the dashboard (which offers no "Turn off" to an owner in live).
      await turnOffTotp(owner);
      await sleep(600);
      expect(refusedForMfa(await as('POST', '/v1/keys', { body: {} }))).toEqual(MFA_REFUSAL);
      expect(refusedForMfa(await as('GET', '/v1/keys'))).toEqual(MFA_REFUSAL);
      expect((await as('GET', '/v1/me')).status).toBe(200);
    } finally {
      await t.app.updateEnvironment({ MFA_CACHE_SECONDS: '' });
    }
  });
});
