/**
 * What the trust checks of DESIGN 9.1 and 9.2 cost in DynamoDB requests, counted on the
 * in-process SDK client (so this file runs in the `integration` project only):
 * - an over-long path id or id header costs none (it is refused before auth);
 * - a signed-in person's request on a participant route costs the same whether or not the
 *   person ever signed out of another session: the one auth read of the membership carries the
 *   ended sessions, and a request of an ended session is refused by that one read;
 * - an API key's auth is one request, also at a minute's edge (DESIGN 9.6: 3 requests on the
 *   bill's path).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DdbCounter } from '../../bench/lib/counters';
import { db } from '../../functions/platform/clients';
import { routesFor } from '../../functions/routes';
import { startTestApp, type TestApp } from '../support/app';
import { applicationBody, personCaller, signIn, signUpAndIn } from '../support/people';

let t: TestApp;
const counter = new DdbCounter();
beforeAll(async () => {
  t = await startTestApp();
  counter.install(db());
});
afterAll(async () => {
  await t?.stop();
});

async function requests(call: () => Promise<unknown>): Promise<number> {
  await t.app.settle();
  return (await counter.measure(call)).counts.requests;
}

describe('the cost of refusing what cannot exist (DESIGN 9.2)', () => {
  it('an over-long path id is 404 with no DynamoDB request, on every route with a path parameter', { timeout: 300_000 }, async () => {
    const merchant = await t.participant('merchant');
    for (const r of routesFor('sandbox').filter((x) => x.path.includes('{') && x.kinds.includes('merchant'))) {
      const path = r.path.replace(/\{[^}]+\}/g, 'x'.repeat(2_050));
      let status = 0;
      const n = await requests(async () => {
        status = (await t.call(r.method, path, { key: merchant.apiKey, body: r.method === 'GET' ? undefined : {} })).status;
      });
      expect([status, n], `${r.method} ${r.path}`).toEqual([404, 0]);
    }
    let status = 0;
    const n = await requests(async () => {
      status = (await t.call('GET', '/v1/balance/details', { key: merchant.apiKey, headers: { 'x-test-clock': 'c'.repeat(2_050) } }))
        .status;
    });
    expect([status, n]).toEqual([400, 0]);
  });
});

describe('the cost of sessions that end (DESIGN 9.1)', () => {
  it("a person's request costs the same before and after another of their sessions ended; the auth is one read", async () => {
    const who = await signUpAndIn();
    const app = await personCaller(t, who)('POST', '/v1/onboarding/applications', { body: applicationBody() });
    const participantId = app.body.data.participantId as string;
    const asPerson = () => personCaller(t, who, participantId)('GET', '/v1/team/members');
    await asPerson();
    const before = await requests(asPerson);
    // Another session of the same person ends: this one still costs the same.
    const other = { ...who, ...(await signIn(who.email, who.password)) };
    expect((await personCaller(t, other)('POST', '/v1/me/sign-out', { body: { refreshToken: other.refreshToken } })).status).toBe(200);
    expect(await requests(asPerson)).toBe(before);
    // The ended session is refused by the same one read.
    let status = 0;
    const n = await requests(async () => {
      status = (await personCaller(t, other, participantId)('GET', '/v1/team/members')).status;
    });
    expect([status, n]).toEqual([401, 1]);
  });
});

describe("the cost of an API key's rate count (DESIGN 9.6)", () => {
  it('the first write of a minute after a read in it is one request, not a failed ADD and an open', async () => {
    const merchant = await t.participant('merchant');
    const balance = () => t.call('GET', '/v1/balance/details', { key: merchant.apiKey });
    // The next minute but one, so that no real request of this key is ever in it.
    const edge = (Math.floor(Date.now() / 60_000) + 2) * 60_000;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(edge - 400);
      expect((await balance()).status).toBe(200); // counted in the minute before the edge
      vi.setSystemTime(edge + 100);
      // 29 requests of the new minute held by the instance (limit 600: flushed every 30, DESIGN 10.2): reads.
      for (let i = 0; i < 29; i++) expect((await balance()).status).toBe(200);
      vi.setSystemTime(edge + 2_000);
      const { value, counts } = await counter.measure(balance);
      expect(value.status).toBe(200);
      // The 30th flushes; the new minute is not open on the item yet: one UpdateItem that opens it.
      expect({ auth: counts.byPurpose.auth, updates: counts.byCommand.UpdateItem, failed: counts.failed }).toEqual({
        auth: 1,
        updates: 1,
        failed: {},
      });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the cost of discovery budgets (DESIGN 10.5)', () => {
  it('far from its limits, a look-up writes its count one time in FLUSH_EVERY; near them, every look-up reads and writes it', async () => {
    const merchant = await t.participant('merchant');
    const discovery = (cmds: { name: string; input: { Key?: { pk?: string } } }[]) => ({
      writes: cmds.filter((c) => c.name === 'UpdateItem' && String(c.input.Key?.pk).startsWith('DISC#')).length,
      reads: cmds.filter((c) => c.name === 'GetItem' && String(c.input.Key?.pk).startsWith('DISC#')).length,
    });
    const lookups = (n: number) => async () => {
      for (let i = 0; i < n; i++) {
        const r = await t.call('GET', '/v1/customer/banks', { key: merchant.apiKey, query: { email: `nobody.${i}@example.com` } });
        expect(r.status).toBe(404);
      }
    };
    // Time stands still, so only the count decides when to write (FLUSH_MS would add a write per 5 s).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now());
      // The instance's first look-up writes (it knows no count yet); then one write per FLUSH_EVERY (10) look-ups.
      expect(discovery((await counter.record(lookups(1))).commands)).toEqual({ writes: 1, reads: 0 });
      expect(discovery((await counter.record(lookups(20))).commands)).toEqual({ writes: 2, reads: 0 });
      // Misses 22..91: writes at 31, 41, ..., 81; from 90 (within FLUSH_EVERY of the miss limit, 100) every
      // look-up writes, and reads the count before it is judged.
      expect(discovery((await counter.record(lookups(70))).commands)).toEqual({ writes: 8, reads: 1 });
      expect(discovery((await counter.record(lookups(5))).commands)).toEqual({ writes: 5, reads: 5 });
    } finally {
      vi.useRealTimers();
    }
  });
});
