/** Provider merchants: batch create (atomic), read, list (paging), update. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../functions/domain/ids';
import { getItem } from '../../functions/platform/table';
import { merchantEmailKey, participantKey } from '../../functions/identity/participant-store';
import { startTestApp, type TestApp } from '../support/app';

let t: TestApp;
let provider: { id: string; apiKey: string };
const run = randomToken(6).toLowerCase();
let n = 0;
const email = (tag = 'm') => `${tag}${++n}-${run}@example.com`;

beforeAll(async () => {
  t = await startTestApp();
  provider = await t.participant('provider');
});
afterAll(async () => t?.stop());

const create = (merchants: unknown[], key = provider.apiKey) => t.call('POST', '/v1/provider/merchants', { key, body: { merchants } });

async function listAll(key = provider.apiKey) {
  const r = await t.call('GET', '/v1/provider/merchants', { key, query: { limit: 100 } });
  expect(r.status).toBe(200);
  return r.body.data as { merchants: { id: string; email: string }[]; total: number };
}

describe('POST /v1/provider/merchants', () => {
  it('creates a batch and returns each merchant with its API key, shown once', async () => {
    const items = [
      {
        name: 'Shop One',
        email: email(),
        phone: '+2348012345678',
        address: '1 Marina, Lagos',
        website: 'https://shop.example.com',
        description: 'Groceries',
      },
      { name: 'Shop Two', email: email() },
    ];
    const r = await create(items);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ statusCode: 201, success: true, message: expect.any(String) });
    expect(r.body.data.created).toBe(2);
    expect(r.body.data.merchants).toHaveLength(2);
    r.body.data.merchants.forEach((m: any, i: number) => {
      expect(m).toEqual({
        id: expect.stringMatching(/^mer_/),
        name: items[i]!.name,
        email: items[i]!.email,
        providerId: provider.id,
        apiKey: expect.stringMatching(/^sk_sandbox_/),
      });
    });
    // The key is shown once: never in the merchant read.
    const got = await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId: r.body.data.merchants[0].id } });
    expect(JSON.stringify(got.body)).not.toContain(r.body.data.merchants[0].apiKey);
  });

  it("the created merchant's apiKey authenticates as that merchant", async () => {
    const r = await create([{ name: 'Keyed', email: email() }]);
    const { apiKey } = r.body.data.merchants[0];
    // A merchant route accepts it (past authentication and kind checks) ...
    const own = await t.call('GET', '/v1/balance/details', { key: apiKey });
    expect([401, 403]).not.toContain(own.status);
    // ... and a provider route refuses it as a merchant's key.
    const prov = await t.call('GET', '/v1/provider/merchants', { key: apiKey });
    expect(prov.status).toBe(403);
    expect(prov.body.message).toBe('Forbidden for this participant type');
  });

  it('accepts industry and stores it as a profile field; the GET returns it', async () => {
    const r = await create([{ name: 'Ind', email: email(), industry: 'retail' }]);
    expect(r.status).toBe(201);
    const got = await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId: r.body.data.merchants[0].id } });
    expect(got.body.data.industry).toBe('retail');
  });

  it('accepts a bankAccount and never returns its number', async () => {
    const r = await create([
      { name: 'Banked', email: email(), bankAccount: { bankName: 'Test Bank', accountNumber: '0123456789', accountName: 'Banked Ltd' } },
    ]);
    expect(r.status).toBe(201);
    const id = r.body.data.merchants[0].id;
    const stored = await getItem<any>(participantKey(id));
    expect(stored.bankAccount).toEqual({ bankName: 'Test Bank', accountNumber: '0123456789', accountName: 'Banked Ltd' });
    const got = await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId: id } });
    expect(JSON.stringify(got.body)).not.toContain('0123456789');
  });

  it.each([
    ['missing name', { email: 'x@example.com' }, 'merchants.0.name'],
    ['missing email', { name: 'X' }, 'merchants.0.email'],
    ['bad email', { name: 'X', email: 'not-an-email' }, 'merchants.0.email'],
    ['empty name', { name: '  ', email: 'x@example.com' }, 'merchants.0.name'],
    ['website not a URL', { name: 'X', email: 'x@example.com', website: 'shop.example' }, 'merchants.0.website'],
    ['website not http(s)', { name: 'X', email: 'x@example.com', website: 'javascript:alert(1)' }, 'merchants.0.website'],
    ['phone not a string', { name: 'X', email: 'x@example.com', phone: 8012345678 }, 'merchants.0.phone'],
    ['unknown field', { name: 'X', email: 'x@example.com', colour: 'red' }, 'merchants.0'],
    [
      'bank account number not digits',
      { name: 'X', email: 'x@example.com', bankAccount: { accountNumber: 'abc' } },
      'merchants.0.bankAccount.accountNumber',
    ],
  ])('400 Invalid merchant data: %s', async (_, item, path) => {
    const r = await create([item]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid merchant data' });
    expect(r.body.errors.map((e: any) => e.path)).toContain(path);
  });

  it.each([
    ['no merchants field', {}],
    ['merchants not an array', { merchants: 'x' }],
    ['empty batch', { merchants: [] }],
    ['unknown top-level field', { merchants: [{ name: 'X', email: 'x@example.com' }], extra: 1 }],
  ])('400 Invalid merchant data: %s', async (_, body) => {
    const r = await t.call('POST', '/v1/provider/merchants', { key: provider.apiKey, body });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid merchant data');
  });

  it('400 Invalid JSON body for malformed JSON', async () => {
    const r = await t.call('POST', '/v1/provider/merchants', { key: provider.apiKey, rawBody: '{"merchants": [' });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid JSON body');
  });

  it('takes at most 25 merchants: 25 are created in one request, 26 is 400 and creates nothing', async () => {
    const before = (await listAll()).total;
    const tooMany = Array.from({ length: 26 }, (_, i) => ({ name: `Big ${i}`, email: email('big') }));
    const r = await create(tooMany);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid merchant data');
    expect(r.body.errors).toEqual([{ path: 'merchants', message: 'at most 25 merchants per request' }]);
    expect((await listAll()).total).toBe(before);

    const ok = await create(tooMany.slice(0, 25));
    expect(ok.status).toBe(201);
    expect(ok.body.data.created).toBe(25);
    expect((await listAll()).total).toBe(before + 25);
  });

  it('a batch with one bad item names it and creates nothing', async () => {
    const before = await listAll();
    const items = [
      { name: 'Good 0', email: email() },
      { name: 'Good 1', email: email() },
      { name: 'Good 2', email: email() },
      { name: 'Bad 3', email: 'nope' },
    ];
    const r = await create(items);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid merchant data');
    expect(r.body.errors).toEqual([{ path: 'merchants.3.email', message: expect.any(String) }]);
    const after = await listAll();
    expect(after.total).toBe(before.total);
    for (const it of items) expect(after.merchants.map((m) => m.email)).not.toContain(it.email);
    // The good emails are still free (no guard was written).
    expect(await getItem(merchantEmailKey(items[0]!.email))).toBeUndefined();
  });

  it('409 for an email of an existing merchant (case-insensitive); nothing of the batch is created', async () => {
    const existing = email('dup');
    expect((await create([{ name: 'First', email: existing }])).status).toBe(201);
    const before = await listAll();
    const fresh = email();
    const r = await create([
      { name: 'Fresh', email: fresh },
      { name: 'Again', email: existing.toUpperCase() },
    ]);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ statusCode: 409, success: false, message: 'Merchant with this email already exists' });
    expect(r.body.errors).toEqual([{ path: 'merchants.1.email', message: expect.any(String) }]);
    const after = await listAll();
    expect(after.total).toBe(before.total);
    expect(after.merchants.map((m) => m.email)).not.toContain(fresh);
    expect(await getItem(merchantEmailKey(fresh))).toBeUndefined();
  });

  it('409 for an email of a merchant the operator created (another provider, or none)', async () => {
    const other = await t.participant('merchant');
    const r = await create([{ name: 'Clash', email: other.email }]);
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Merchant with this email already exists');
  });

  it('409 for a duplicate inside the batch (case-insensitive); nothing is created', async () => {
    const before = await listAll();
    const dup = email('inbatch');
    const r = await create([
      { name: 'A', email: dup },
      { name: 'B', email: email() },
      { name: 'C', email: ` ${dup.toUpperCase()}`.trim() },
    ]);
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Merchant with this email already exists');
    expect(r.body.errors).toEqual([{ path: 'merchants.2.email', message: 'same email as merchants.0.email' }]);
    expect((await listAll()).total).toBe(before.total);
  });

  it('two concurrent batches with the same email: exactly one wins', async () => {
    const shared = email('race');
    const [a, b] = await Promise.all([
      create([
        { name: 'RA', email: shared },
        { name: 'RA2', email: email() },
      ]),
      create([
        { name: 'RB', email: shared },
        { name: 'RB2', email: email() },
      ]),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const all = await listAll();
    expect(all.merchants.filter((m) => m.email === shared)).toHaveLength(1);
  });

  it('replays with the same Idempotency-Key instead of creating twice', async () => {
    const body = { merchants: [{ name: 'Idem', email: email() }] };
    const headers = { 'idempotency-key': `k-${run}` };
    const first = await t.call('POST', '/v1/provider/merchants', { key: provider.apiKey, body, headers });
    const second = await t.call('POST', '/v1/provider/merchants', { key: provider.apiKey, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.merchants[0].id).toBe(first.body.data.merchants[0].id);
  });
});

describe('GET /v1/provider/merchant', () => {
  it('returns the Merchant with every spec field and no sensitive or internal field', async () => {
    const created = await create([
      {
        name: 'Full',
        email: email(),
        phone: '+2348000000000',
        website: 'https://full.example.com',
        description: 'Everything',
        country: 'NG',
        state: 'Lagos',
        icon: 'https://full.example.com/icon.png',
        bankAccount: { bankName: 'B', accountNumber: '99887766', accountName: 'Full' },
      },
    ]);
    const c = created.body.data.merchants[0];
    const r = await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId: c.id } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true, message: expect.any(String) });
    const m = r.body.data;
    expect(m).toMatchObject({
      id: c.id,
      ref: expect.stringMatching(/^MR[A-Z0-9]{12}$/),
      code: expect.stringMatching(/^[A-Z0-9]{8}$/),
      name: 'Full',
      email: c.email,
      phone: '+2348000000000',
      providerId: provider.id,
      userType: 'merchant',
      country: 'NG',
      state: 'Lagos',
      website: 'https://full.example.com',
      description: 'Everything',
      icon: 'https://full.example.com/icon.png',
      trusted: false,
      trustLevel: 'basic',
      createdAt: expect.any(String),
    });
    for (const k of ['pk', 'sk', 'gsi2pk', 'gsi2sk', 'apiKey', 'bankAccount', 'trustVersion', 'type']) expect(m).not.toHaveProperty(k);
    expect(JSON.stringify(r.body)).not.toContain('99887766');
  });

  it('unset optional fields are null', async () => {
    const c = (await create([{ name: 'Bare', email: email() }])).body.data.merchants[0];
    const m = (await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId: c.id } })).body.data;
    for (const k of ['phone', 'country', 'state', 'website', 'description', 'icon']) expect(m[k]).toBeNull();
  });

  it('400 Invalid query parameters without entityId', async () => {
    const r = await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid query parameters');
  });

  it('404 Merchant not found for an unknown id and for a non-merchant id', async () => {
    for (const entityId of ['mer_doesnotexist', provider.id]) {
      const r = await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId } });
      expect(r.status).toBe(404);
      expect(r.body.message).toBe('Merchant not found');
    }
  });
});

describe('GET /v1/provider/merchants', () => {
  let p: { id: string; apiKey: string };
  let ids: string[];
  beforeAll(async () => {
    p = await t.participant('provider');
    const r = await create(
      Array.from({ length: 7 }, (_, i) => ({ name: `L${i}`, email: email('list') })),
      p.apiKey,
    );
    ids = r.body.data.merchants.map((m: any) => m.id);
    // Make two of them trusted.
    for (const id of [ids[1], ids[4]]) {
      const u = await t.call('PATCH', '/v1/provider/merchant/trust', { key: p.apiKey, body: { entityId: id, trusted: true } });
      expect(u.status).toBe(200);
    }
  });

  it('lists only own merchants with id, name, email, trusted, trustLevel, createdAt and total (default limit 20)', async () => {
    const r = await t.call('GET', '/v1/provider/merchants', { key: p.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data.total).toBe(7);
    expect(r.body.data.merchants.map((m: any) => m.id)).toEqual(ids);
    expect(Object.keys(r.body.data.merchants[0]).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'trustLevel', 'trusted']);
  });

  it('pages with limit and offset; total counts every match', async () => {
    const page = async (limit: number, offset: number) =>
      (await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: { limit, offset } })).body.data;
    const a = await page(3, 0);
    const b = await page(3, 3);
    const c = await page(3, 6);
    const d = await page(3, 9);
    expect([a.total, b.total, c.total, d.total]).toEqual([7, 7, 7, 7]);
    expect([...a.merchants, ...b.merchants, ...c.merchants].map((m: any) => m.id)).toEqual(ids);
    expect(d.merchants).toEqual([]);
  });

  it('filters by trusted', async () => {
    const yes = (await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: { trusted: true } })).body.data;
    expect(yes.total).toBe(2);
    expect(yes.merchants.map((m: any) => m.id)).toEqual([ids[1], ids[4]]);
    expect(yes.merchants.every((m: any) => m.trusted === true)).toBe(true);
    const no = (await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: { trusted: false, limit: 2 } })).body.data;
    expect(no.total).toBe(5);
    expect(no.merchants).toHaveLength(2);
  });

  it("narrows by ids, comma-separated or repeated; other providers' and unknown ids are left out", async () => {
    const foreign = (await create([{ name: 'Foreign', email: email() }])).body.data.merchants[0].id;
    const comma = (
      await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: { ids: `${ids[5]},${ids[0]},${foreign},mer_unknown` } })
    ).body.data;
    expect(comma.total).toBe(2);
    expect(comma.merchants.map((m: any) => m.id)).toEqual([ids[0], ids[5]]);
    const repeated = (await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: { ids: [ids[1]!, ids[2]!, ids[4]!] } })).body
      .data;
    expect(repeated.merchants.map((m: any) => m.id)).toEqual([ids[1], ids[2], ids[4]]);
    const both = (
      await t.call('GET', '/v1/provider/merchants', {
        key: p.apiKey,
        query: { ids: [ids[1]!, ids[2]!, ids[4]!], trusted: true, limit: 1, offset: 1 },
      })
    ).body.data;
    expect(both).toEqual({ merchants: [expect.objectContaining({ id: ids[4] })], total: 2, hasMore: false });
  });

  it.each([[{ limit: 101 }], [{ limit: 0 }], [{ limit: 'ten' }], [{ offset: -1 }], [{ trusted: 'yes' }], [{ ids: ',' }]])(
    '400 Invalid query parameters for %o',
    async (query) => {
      const r = await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: query as any });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('Invalid query parameters');
    },
  );

  it('limit 100 is accepted', async () => {
    const r = await t.call('GET', '/v1/provider/merchants', { key: p.apiKey, query: { limit: 100 } });
    expect(r.status).toBe(200);
  });
});

describe('PATCH /v1/provider/merchant', () => {
  it('updates profile fields and returns id, name, email', async () => {
    const c = (await create([{ name: 'Old', email: email(), phone: '+2340000000', website: 'https://old.example.com' }])).body.data
      .merchants[0];
    const r = await t.call('PATCH', '/v1/provider/merchant', {
      key: provider.apiKey,
      body: { entityId: c.id, name: 'New Name', description: 'Now described', icon: 'https://cdn.example.com/i.png', website: null },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true, message: expect.any(String) });
    expect(r.body.data).toEqual({ id: c.id, name: 'New Name', email: c.email });
    const m = (await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId: c.id } })).body.data;
    expect(m).toMatchObject({
      name: 'New Name',
      description: 'Now described',
      icon: 'https://cdn.example.com/i.png',
      website: null,
      phone: '+2340000000',
    });
  });

  it('changes the email: the new one is taken, the old one is free again', async () => {
    const oldEmail = email('mv');
    const c = (await create([{ name: 'Mover', email: oldEmail }])).body.data.merchants[0];
    const newEmail = email('mv');
    const r = await t.call('PATCH', '/v1/provider/merchant', { key: provider.apiKey, body: { entityId: c.id, email: newEmail } });
    expect(r.status).toBe(200);
    expect(r.body.data.email).toBe(newEmail);
    expect(await getItem(merchantEmailKey(oldEmail))).toBeUndefined();
    expect(await getItem(merchantEmailKey(newEmail))).toMatchObject({ merchantId: c.id });
    // The new email now clashes; the old one can be used again.
    expect((await create([{ name: 'X', email: newEmail }])).status).toBe(409);
    expect((await create([{ name: 'Y', email: oldEmail }])).status).toBe(201);
  });

  it('changing only the case of the email keeps its guard', async () => {
    const e = email('case');
    const c = (await create([{ name: 'Case', email: e }])).body.data.merchants[0];
    const r = await t.call('PATCH', '/v1/provider/merchant', { key: provider.apiKey, body: { entityId: c.id, email: e.toUpperCase() } });
    expect(r.status).toBe(200);
    expect(await getItem(merchantEmailKey(e))).toMatchObject({ merchantId: c.id });
  });

  it('409 when the new email belongs to another merchant; nothing changes', async () => {
    const taken = email('taken');
    await create([{ name: 'Holder', email: taken }]);
    const mine = email();
    const c = (await create([{ name: 'Mine', email: mine }])).body.data.merchants[0];
    const r = await t.call('PATCH', '/v1/provider/merchant', {
      key: provider.apiKey,
      body: { entityId: c.id, email: taken.toUpperCase(), name: 'Changed' },
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Merchant with this email already exists');
    const m = (await t.call('GET', '/v1/provider/merchant', { key: provider.apiKey, query: { entityId: c.id } })).body.data;
    expect(m).toMatchObject({ name: 'Mine', email: mine });
    expect(await getItem(merchantEmailKey(mine))).toMatchObject({ merchantId: c.id });
  });

  it.each([
    ['icon not a URL', { icon: 'not a url' }],
    ['website not a URL', { website: 'ftp://x.example.com' }],
    ['bad email', { email: 'nope' }],
    ['empty name', { name: '' }],
    ['null name', { name: null }],
    ['unknown field', { colour: 'blue' }],
    ['nothing to change', {}],
  ])('400 Invalid merchant data: %s (nothing written)', async (_, patch) => {
    const c = (await create([{ name: 'Stay', email: email() }])).body.data.merchants[0];
    const r = await t.call('PATCH', '/v1/provider/merchant', { key: provider.apiKey, body: { entityId: c.id, ...patch } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid merchant data');
    const stored = await getItem<any>(participantKey(c.id));
    expect(stored.name).toBe('Stay');
    expect(stored.updatedAt).toBe(stored.createdAt);
  });

  it('400 Invalid merchant data without entityId', async () => {
    const r = await t.call('PATCH', '/v1/provider/merchant', { key: provider.apiKey, body: { name: 'X' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid merchant data');
    expect(r.body.errors.map((e: any) => e.path)).toContain('entityId');
  });

  it('404 Merchant not found for an unknown entityId', async () => {
    const r = await t.call('PATCH', '/v1/provider/merchant', { key: provider.apiKey, body: { entityId: 'mer_nope', name: 'X' } });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Merchant not found');
  });
});
