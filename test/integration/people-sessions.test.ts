/**
 * Sessions that end and invitations only for the verified owner of the e-mail (DESIGN 9.1),
 * with real people through the Cognito emulator: sign-out ends that session only (its access
 * tokens get 401 `Session has ended` everywhere, its refresh token is revoked at Cognito), and
 * invitations are listed, withdrawn, expire, refuse members, are e-mailed with their dashboard
 * link, and are accepted only by a verified address equal to theirs.
 */
import { UpdateUserAttributesCommand } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitationKey } from '../../functions/identity/invitation-store';
import { db } from '../../functions/platform/clients';
import { table, UpdateCommand } from '../../functions/platform/table';
import { cognitoClient } from '../../local/cognito';
import { readMail } from '../../local/mail';
import { startTestApp, type TestApp } from '../support/app';
import { applicationBody, emulator, newEmail, personCaller, refreshTokens, signIn, signUpAndIn, type SignedIn } from '../support/people';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

/** A person who owns a new merchant (sandbox: approved at once). */
async function owner() {
  const who = await signUpAndIn();
  const as = personCaller(t, who);
  const r = await as('POST', '/v1/onboarding/applications', { body: applicationBody('merchant') });
  expect(r.status).toBe(201);
  return { who, as, participantId: r.body.data.participantId as string };
}

describe('sign-out ends that session only (DESIGN 9.1)', () => {
  it("the session's access tokens get 401 `Session has ended` on every route; its refresh token is revoked; the other session works", async () => {
    const o = await owner();
    const second = await owner();
    // The same person, a second participant and a second sign-in (another browser).
    const inv = await second.as('POST', '/v1/team/invitations', { body: { email: o.who.email, role: 'admin' } });
    expect((await personCaller(t, o.who)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`)).status).toBe(200);
    const other = { ...o.who, ...(await signIn(o.who.email, o.who.password)) };
    const a = (path: string, participantId: string) => personCaller(t, o.who, participantId)('GET', path);
    const b = (path: string, participantId: string) => personCaller(t, other, participantId)('GET', path);
    expect((await a('/v1/team/members', o.participantId)).status).toBe(200);

    const out = await personCaller(t, o.who)('POST', '/v1/me/sign-out', { body: { refreshToken: o.who.refreshToken } });
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ signedOut: true, refreshTokenRevoked: true });

    for (const participantId of [o.participantId, second.participantId]) {
      for (const path of ['/v1/team/members', '/v1/balance/details', '/v1/audit-log']) {
        const r = await a(path, participantId);
        expect([r.status, r.body.message], path).toEqual([401, 'Session has ended']);
        expect((await b(path, participantId)).status, path).toBe(200);
      }
    }
    const me = await personCaller(t, o.who)('GET', '/v1/me');
    expect([me.status, me.body.message]).toEqual([401, 'Session has ended']);
    expect((await personCaller(t, other)('GET', '/v1/me')).status).toBe(200);
    const again = await personCaller(t, o.who)('POST', '/v1/me/sign-out', { body: {} });
    expect([again.status, again.body.message]).toEqual([401, 'Session has ended']);
    // The refresh token is revoked at Cognito: no new access token from it.
    await expect(refreshTokens(o.who.refreshToken)).rejects.toThrow();
    // The other session renews and keeps working.
    const renewed = await refreshTokens(other.refreshToken);
    expect((await personCaller(t, { ...other, ...renewed }, o.participantId)('GET', '/v1/team/members')).status).toBe(200);
  });

  it('a membership made after the sign-out refuses the ended session too; bad bodies are 400', async () => {
    const o = await owner();
    const out = await personCaller(t, o.who)('POST', '/v1/me/sign-out', { body: {} });
    expect(out.body.data).toEqual({ signedOut: true, refreshTokenRevoked: false });
    const inviter = await owner();
    const inv = await inviter.as('POST', '/v1/team/invitations', { body: { email: o.who.email, role: 'viewer' } });
    const fresh = { ...o.who, ...(await signIn(o.who.email, o.who.password)) };
    expect((await personCaller(t, fresh)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`)).status).toBe(200);
    const old = await personCaller(t, o.who, inviter.participantId)('GET', '/v1/team/members');
    expect([old.status, old.body.message]).toEqual([401, 'Session has ended']);
    expect((await personCaller(t, fresh, inviter.participantId)('GET', '/v1/transaction-history')).status).toBe(200);
    for (const body of [{ refreshToken: '' }, { refreshToken: 42 }, { other: 1 }]) {
      const r = await personCaller(t, fresh)('POST', '/v1/me/sign-out', { body });
      expect([r.status, r.body.message], JSON.stringify(body)).toEqual([400, 'Invalid request parameters']);
    }
    const key = await personCaller(t, fresh, inviter.participantId)('GET', '/v1/me');
    expect(key.status).toBe(200);
    expect((await t.call('POST', '/v1/me/sign-out', { key: (await t.participant('merchant')).apiKey, body: {} })).status).toBe(403);
  });
});

describe('sign-out revokes only its own session (DESIGN 10.3)', () => {
  it("another session's refresh token (the person's own or anyone's) is 400 and revokes nothing; its own is revoked", async () => {
    const o = await owner();
    const other = { ...o.who, ...(await signIn(o.who.email, o.who.password)) };
    const stranger = await signUpAndIn();
    for (const refreshToken of [other.refreshToken, stranger.refreshToken]) {
      const r = await personCaller(t, o.who)('POST', '/v1/me/sign-out', { body: { refreshToken } });
      expect([r.status, r.body.message, r.body.code]).toEqual([
        400,
        'Refresh token does not belong to this session',
        'refresh_token_foreign',
      ]);
      expect(r.body.errors).toEqual([{ path: 'refreshToken', message: expect.any(String) }]);
    }
    // Nothing was revoked or ended: every session and refresh token still works.
    expect((await personCaller(t, o.who)('GET', '/v1/team/members')).status).toBe(200);
    for (const who of [other, stranger, o.who]) {
      const renewed = await refreshTokens(who.refreshToken);
      expect((await personCaller(t, { ...who, ...renewed })('GET', '/v1/me')).status).toBe(200);
    }
    // Its own refresh token: revoked, and the session ends.
    const out = await personCaller(t, o.who)('POST', '/v1/me/sign-out', { body: { refreshToken: o.who.refreshToken } });
    expect([out.status, out.body.data]).toEqual([200, { signedOut: true, refreshTokenRevoked: true }]);
    await expect(refreshTokens(o.who.refreshToken)).rejects.toThrow();
    await refreshTokens(other.refreshToken);
  });
});

describe('invitations (DESIGN 9.1)', () => {
  it('only a verified address equal to the invitation accepts: another address 403, the same address unverified 403', async () => {
    const o = await owner();
    const target = newEmail('target');
    const forgedInv = await o.as('POST', '/v1/team/invitations', { body: { email: target, role: 'admin' } });
    expect(forgedInv.status).toBe(201);

    const stranger = await signUpAndIn();
    const other = await personCaller(t, stranger)('POST', `/v1/team/invitations/${forgedInv.body.data.token}/accept`);
    expect([other.status, other.body.message]).toEqual([403, 'This invitation is for another e-mail address']);

    // An attacker changes their own e-mail to the invited address without verifying it.
    const attacker = await signUpAndIn();
    const cognito = cognitoClient(emulator().endpoint);
    try {
      await cognito.send(
        new UpdateUserAttributesCommand({ AccessToken: attacker.accessToken, UserAttributes: [{ Name: 'email', Value: target }] }),
      );
    } finally {
      cognito.destroy();
    }
    const forged = await personCaller(t, attacker)('POST', `/v1/team/invitations/${forgedInv.body.data.token}/accept`);
    expect([forged.status, forged.body.message]).toEqual([403, 'Verify your e-mail address first']);
    expect((await o.as('GET', '/v1/team/members')).body.data.members).toHaveLength(1);

    // The verified owner of an invited address joins, once.
    const invitee = newEmail('invitee');
    const inv = await o.as('POST', '/v1/team/invitations', { body: { email: invitee, role: 'admin' } });
    const real = await signUpAndIn({ email: invitee });
    const ok = await personCaller(t, real)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`);
    expect([ok.status, ok.body.data.role]).toEqual([200, 'admin']);
    const used = await personCaller(t, real)('POST', `/v1/team/invitations/${inv.body.data.token}/accept`);
    expect([used.status, used.body.message]).toEqual([404, 'Invitation not found']);
  });

  it('the invitation is e-mailed with its dashboard link and read by its token; list shows pending only; withdraw; 409 for members', async () => {
    const o = await owner();
    const email = newEmail('teammate');
    const made = await o.as('POST', '/v1/team/invitations', { body: { email, role: 'developer' } });
    expect(made.status).toBe(201);
    const { invitationId, token, expiresAt } = made.body.data;
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

    const mail = readMail(t.app.mailDir).find((m) => m.to === email);
    expect(mail).toBeDefined();
    expect(mail!.link).toBe(`${t.url}/dashboard/invitations/${token}#email=${encodeURIComponent(email)}`);
    expect(mail!.text).toContain(mail!.link!);
    expect(mail!.subject).toMatch(/^You are invited to join /);

    const reader = await signUpAndIn();
    const read = await personCaller(t, reader)('GET', `/v1/invitations/${token}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      invitationId,
      participantName: expect.any(String),
      participantType: 'merchant',
      role: 'developer',
      invitedBy: { email: o.who.email },
      email,
      expiresAt,
      status: 'pending',
    });
    expect((await personCaller(t, reader)('GET', '/v1/invitations/idpinv_unknown')).body.message).toBe('Invitation not found');

    const second = await o.as('POST', '/v1/team/invitations', { body: { email: newEmail('second'), role: 'viewer' } });
    const list = await o.as('GET', '/v1/team/invitations');
    expect(list.status).toBe(200);
    expect(list.body.data.hasMore).toBe(false);
    expect(list.body.data.invitations.map((i: { invitationId: string }) => i.invitationId)).toEqual([
      second.body.data.invitationId,
      invitationId,
    ]);
    expect(list.body.data.invitations[1]).toEqual({
      invitationId,
      email,
      role: 'developer',
      invitedBy: { type: 'user', userId: o.who.sub, email: o.who.email },
      createdAt: expect.any(String),
      expiresAt,
    });
    const page = await o.as('GET', '/v1/team/invitations', { query: { limit: 1 } });
    expect([page.body.data.invitations.length, page.body.data.hasMore]).toEqual([1, true]);
    const next = await o.as('GET', '/v1/team/invitations', {
      query: { limit: 1, startingAfter: page.body.data.invitations[0].invitationId },
    });
    expect(next.body.data.invitations.map((i: { invitationId: string }) => i.invitationId)).toEqual([invitationId]);

    const withdrawn = await o.as('DELETE', `/v1/team/invitations/${invitationId}`);
    expect([withdrawn.status, withdrawn.body.data]).toEqual([200, { invitationId, revoked: true }]);
    expect((await o.as('DELETE', `/v1/team/invitations/${invitationId}`)).body.message).toBe('Invitation not found');
    const invitee = await signUpAndIn({ email });
    const late = await personCaller(t, invitee)('POST', `/v1/team/invitations/${token}/accept`);
    expect([late.status, late.body.message]).toEqual([404, 'Invitation not found']);
    expect((await personCaller(t, invitee)('GET', `/v1/invitations/${token}`)).body.data.status).toBe('revoked');
    expect((await o.as('GET', '/v1/team/invitations')).body.data.invitations.map((i: { invitationId: string }) => i.invitationId)).toEqual([
      second.body.data.invitationId,
    ]);

    const member = await o.as('POST', '/v1/team/invitations', { body: { email: o.who.email.toUpperCase(), role: 'viewer' } });
    expect([member.status, member.body.message]).toEqual([409, 'Already a member']);

    // Another participant's invitation is not yours.
    const stranger = await owner();
    const foreign = await stranger.as('DELETE', `/v1/team/invitations/${second.body.data.invitationId}`);
    expect([foreign.status, foreign.body.message]).toEqual([404, 'Invitation not found']);
    expect((await stranger.as('GET', '/v1/team/invitations')).body.data.invitations).toEqual([]);
  });

  it('an invitation older than 7 days is 410 `Invitation has expired` and leaves the pending list', async () => {
    const o = await owner();
    const email = newEmail('late');
    const made = await o.as('POST', '/v1/team/invitations', { body: { email, role: 'viewer' } });
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: invitationKey(made.body.data.token),
        UpdateExpression: 'SET inviteExpiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const invitee: SignedIn = await signUpAndIn({ email });
    const r = await personCaller(t, invitee)('POST', `/v1/team/invitations/${made.body.data.token}/accept`);
    expect([r.status, r.body.message]).toEqual([410, 'Invitation has expired']);
    expect((await personCaller(t, invitee)('GET', `/v1/invitations/${made.body.data.token}`)).body.data.status).toBe('expired');
    expect((await o.as('GET', '/v1/team/invitations')).body.data.invitations).toEqual([]);
  });
});

describe('the audit log of what a provider creates (DESIGN 9.1)', () => {
  it("each merchant a provider creates has its creation and its key in its own audit log, by the provider's key", async () => {
    const provider = await t.participant('provider');
    const made = await t.call('POST', '/v1/provider/merchants', {
      key: provider.apiKey,
      body: {
        merchants: [
          { name: 'One', email: newEmail('one') },
          { name: 'Two', email: newEmail('two') },
        ],
      },
    });
    expect(made.status).toBe(201);
    for (const m of made.body.data.merchants as { id: string; apiKey: string }[]) {
      const log = await t.call('GET', '/v1/audit-log', { key: m.apiKey });
      expect(log.status).toBe(200);
      const entries = log.body.data.entries as { action: string; target: string; actor: { type: string; id: string } }[];
      expect(entries.map((e) => e.action).sort()).toEqual(['api_key.created', 'participant.created']);
      expect(entries.find((e) => e.action === 'participant.created')!.target).toBe(m.id);
      for (const e of entries) expect(e.actor).toMatchObject({ type: 'apiKey', id: expect.stringMatching(/^key_/) });
    }
  });
});
