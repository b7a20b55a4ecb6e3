import { describe, expect, it } from 'vitest';
import { ASSIGNED_COUNTRY_CODES, isAssignedCountryCode } from '../../functions/domain/countries';
import {
  MAX_REASON_LENGTH,
  checkCustomerItem,
  echoedClientRef,
  normalizeEmail,
  planBatch,
  summarize,
} from '../../functions/domain/customers';
import { LOOKUP_PHRASE_PATTERN, isLookupPhraseShaped, newLookupPhrase } from '../../functions/customers/phrase-store';

const valid = {
  clientRef: 'CR-1',
  firstname: 'Ada',
  lastname: 'Obi',
  email: 'ada@example.com',
  country: 'NG',
  accountNumber: '0123456789',
  reference: 'REF-1',
};

const reasonOf = (raw: unknown) => {
  const r = checkCustomerItem(raw);
  if (r.ok) throw new Error('expected invalid');
  return r.reason;
};

describe('ISO 3166-1 alpha-2 country list', () => {
  it('holds the 249 assigned codes, unique, sorted, two upper-case letters', () => {
    expect(ASSIGNED_COUNTRY_CODES).toHaveLength(249);
    expect(new Set(ASSIGNED_COUNTRY_CODES).size).toBe(249);
    expect([...ASSIGNED_COUNTRY_CODES].sort()).toEqual(ASSIGNED_COUNTRY_CODES);
    for (const c of ASSIGNED_COUNTRY_CODES) expect(c).toMatch(/^[A-Z]{2}$/);
  });

  it('has a name for every code in the Unicode region data', () => {
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const c of ASSIGNED_COUNTRY_CODES) expect(names.of(c)).not.toBe(c);
  });

  it('accepts assigned codes, including recent ones', () => {
    for (const c of ['NG', 'GB', 'US', 'GH', 'KE', 'ZA', 'SS', 'BQ', 'CW', 'SX', 'AX', 'BL', 'MF', 'PS', 'TW', 'AQ', 'BV', 'UM']) {
      expect(isAssignedCountryCode(c)).toBe(true);
    }
  });

  it('refuses reserved, withdrawn, user-assigned and malformed codes', () => {
    for (const c of [
      'UK',
      'EU',
      'UN',
      'AN',
      'YU',
      'CS',
      'SU',
      'TP',
      'ZR',
      'XK',
      'XX',
      'ZZ',
      'AA',
      'QM',
      'AC',
      'IC',
      'EA',
      'CQ',
      'ng',
      'NGA',
      'N',
      '',
    ]) {
      expect(isAssignedCountryCode(c)).toBe(false);
    }
  });
});

describe('customer item validation', () => {
  it('accepts the required fields and normalizes them', () => {
    const r = checkCustomerItem({ ...valid, clientRef: '  CR-1 ', email: ' Ada@Example.com ', country: 'ng' });
    expect(r).toEqual({ ok: true, value: expect.objectContaining({ clientRef: 'CR-1', email: 'Ada@Example.com', country: 'NG' }) });
  });

  it('accepts every optional field, and treats blank or null optionals as absent', () => {
    const full = {
      ...valid,
      middlename: 'N',
      accountName: 'Ada N Obi',
      address: '1 Marina',
      gender: 'female',
      phone: '+234 (803) 123-4567',
    };
    expect(checkCustomerItem(full).ok).toBe(true);
    const blank = checkCustomerItem({ ...valid, middlename: '', accountName: null, address: '   ', gender: '', phone: '' });
    expect(blank.ok).toBe(true);
    if (blank.ok) {
      for (const f of ['middlename', 'accountName', 'address', 'gender', 'phone'] as const) expect(blank.value[f]).toBeUndefined();
    }
  });

  it.each(['clientRef', 'firstname', 'lastname', 'email', 'country', 'accountNumber', 'reference'])('requires %s', (field) => {
    const { [field]: _omit, ...rest } = valid as Record<string, unknown>;
    expect(reasonOf(rest)).toBe(`Missing required field: ${field}`);
    expect(reasonOf({ ...rest, [field]: null })).toBe(`Invalid ${field}: must be a string`);
    expect(reasonOf({ ...rest, [field]: '  ' })).toBe(`Invalid ${field}: must not be empty`);
  });

  it('names several missing fields in one sentence', () => {
    expect(reasonOf({ clientRef: 'x' })).toBe('Missing required fields: firstname, lastname, email, country, accountNumber, reference');
  });

  it('requires a valid email address', () => {
    for (const email of ['nope', 'a@', '@b.com', 'a b@c.com', 'a@b', `${'x'.repeat(250)}@example.com`]) {
      expect(reasonOf({ ...valid, email })).toMatch(/^Invalid email: /);
    }
    expect(reasonOf({ ...valid, email: 'nope' })).toBe('Invalid email: must be a valid email address');
  });

  it('requires an assigned country code', () => {
    expect(reasonOf({ ...valid, country: 'UK' })).toBe('Invalid country: must be an assigned ISO 3166-1 alpha-2 country code');
    expect(reasonOf({ ...valid, country: 'Nigeria' })).toMatch(/^Invalid country: /);
  });

  it('requires the account number as a string of 6 to 20 digits', () => {
    for (const accountNumber of ['12345', '1'.repeat(21), '01234-5678', 'ABC1234567', '0123 456789']) {
      expect(reasonOf({ ...valid, accountNumber })).toBe('Invalid accountNumber: must be 6 to 20 digits');
    }
    expect(reasonOf({ ...valid, accountNumber: 123456789 })).toBe('Invalid accountNumber: must be a string');
    expect(checkCustomerItem({ ...valid, accountNumber: '000000' }).ok).toBe(true);
  });

  it('bounds lengths and refuses control characters', () => {
    expect(reasonOf({ ...valid, clientRef: 'x'.repeat(101) })).toBe('Invalid clientRef: must be at most 100 characters');
    expect(reasonOf({ ...valid, firstname: 'A\u0000da' })).toBe('Invalid firstname: must not contain control characters');
    expect(reasonOf({ ...valid, address: 'x'.repeat(501) })).toBe('Invalid address: must be at most 500 characters');
  });

  it('checks the phone format', () => {
    expect(reasonOf({ ...valid, phone: 'call me' })).toMatch(/^Invalid phone: must be a phone number/);
    expect(checkCustomerItem({ ...valid, phone: '08031234567' }).ok).toBe(true);
  });

  it('refuses unknown fields and records that are not objects', () => {
    expect(reasonOf({ ...valid, dateOfBirth: '1990-01-01', bvn: '1' })).toBe('Unknown fields: dateOfBirth, bvn');
    for (const raw of [null, 'x', 5, [valid], true]) expect(reasonOf(raw)).toBe('Record must be a JSON object');
  });

  it('combines every problem of a record into one bounded sentence', () => {
    const reason = reasonOf({ ...valid, email: 'x', country: 'XX', lastname: undefined, extra: 1 });
    expect(reason).toBe(
      'Missing required field: lastname; Invalid email: must be a valid email address; Invalid country: must be an assigned ISO 3166-1 alpha-2 country code; Unknown field: extra',
    );
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`unknownField${i}`, 1]));
    expect(reasonOf({ ...valid, ...many }).length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
  });

  it('compares emails case-insensitively', () => {
    expect(normalizeEmail(' Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('echoes a string clientRef only', () => {
    expect(echoedClientRef({ clientRef: ' c1 ' })).toBe('c1');
    expect(echoedClientRef({ clientRef: 5 })).toBeNull();
    expect(echoedClientRef('x')).toBeNull();
    expect(echoedClientRef({ clientRef: 'x'.repeat(300) })).toHaveLength(100);
  });
});

describe('batch plan: in-batch duplicates', () => {
  const rec = (clientRef: string, reference: string, over: Record<string, unknown> = {}) => ({ ...valid, clientRef, reference, ...over });

  it('keeps the first record of a clientRef or reference and reports later ones', () => {
    const plan = planBatch([rec('a', '1'), rec('a', '2'), rec('b', '1'), rec('c', '3'), rec(' a ', '4')]);
    expect(plan.candidates.map((c) => c.index)).toEqual([0, 3]);
    expect(plan.failures).toEqual([
      { index: 1, clientRef: 'a', reason: 'Duplicate clientRef: same as the record at index 0 of this batch', kind: 'duplicate' },
      { index: 2, clientRef: 'b', reason: 'Duplicate reference: same as the record at index 0 of this batch', kind: 'duplicate' },
      { index: 4, clientRef: 'a', reason: 'Duplicate clientRef: same as the record at index 0 of this batch', kind: 'duplicate' },
    ]);
  });

  it('compares clientRef and reference exactly (case-sensitive) and in separate namespaces', () => {
    const plan = planBatch([rec('a', 'x'), rec('A', 'X'), rec('x', 'a')]);
    expect(plan.candidates.map((c) => c.index)).toEqual([0, 1, 2]);
  });

  it('counts an invalid record as invalid, and lets it claim nothing', () => {
    const plan = planBatch([rec('a', '1', { email: 'bad' }), rec('a', '1'), rec('a', '1', { country: 'XX' })]);
    expect(plan.candidates.map((c) => c.index)).toEqual([1]);
    expect(plan.failures.map((f) => [f.index, f.kind])).toEqual([
      [0, 'invalid'],
      [2, 'invalid'],
    ]);
  });

  it('summarizes: failed = duplicates + invalidData, successful = created', () => {
    const plan = planBatch([rec('a', '1'), rec('a', '2'), rec('b', '3', { email: 'x' })]);
    expect(summarize(3, 1, plan.failures)).toEqual({ total: 3, successful: 1, failed: 2, duplicates: 1, invalidData: 1 });
  });
});

describe('lookupPhrase tokens', () => {
  it('are lp_ + 32 base62 characters, and unique', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const p = newLookupPhrase();
      expect(p).toMatch(LOOKUP_PHRASE_PATTERN);
      seen.add(p);
    }
    expect(seen.size).toBe(1000);
    expect(isLookupPhraseShaped('lp_short')).toBe(false);
    expect(isLookupPhraseShaped(42)).toBe(false);
  });
});
