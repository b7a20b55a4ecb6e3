import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGREEMENT_PHRASE_PREFIX, issueAgreementPhrase, readAgreementPhrase } from '../../functions/domain/agreement-phrase';
import { decisionId } from '../../functions/domain/decisions';
import { randomToken } from '../../functions/domain/ids';
import { resetSecrets } from '../../functions/domain/secrets';

const saved = process.env.APP_SECRETS;
const useKey = (masterKey: string) => {
  process.env.APP_SECRETS = JSON.stringify({ masterKey });
  resetSecrets();
};
const keyA = randomToken(64);
const keyB = randomToken(64);

beforeEach(() => useKey(keyA));
afterEach(() => {
  if (saved === undefined) delete process.env.APP_SECRETS;
  else process.env.APP_SECRETS = saved;
  resetSecrets();
});

const merchant = 'mer_000000001AbCdEfGhIjKlMn';
const other = 'mer_000000002ZyXwVuTsRqPoNm';
const decision = decisionId(merchant, 'cus_000000001Customer00001');

/** The phrase with the character at `i` replaced by another base64url character. */
function flip(phrase: string, i: number): string {
  const c = phrase[i]!;
  const replacement = c === 'A' ? 'B' : 'A';
  return phrase.slice(0, i) + replacement + phrase.slice(i + 1);
}

describe('agreement phrase', () => {
  it('round trips: the phrase names its decision for its merchant', async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    expect(phrase.startsWith(AGREEMENT_PHRASE_PREFIX)).toBe(true);
    expect(phrase).toMatch(/^ap_[A-Za-z0-9_-]+$/);
    expect(await readAgreementPhrase(phrase, merchant)).toBe(decision);
  });

  it('reveals nothing in clear: neither the decision id nor the merchant id appears', async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    expect(phrase).not.toContain(decision.slice(4));
    expect(phrase).not.toContain(merchant.slice(4));
    // Random IV: two issues of one decision differ, and both read back.
    const again = await issueAgreementPhrase(decision, merchant);
    expect(again).not.toBe(phrase);
    expect(await readAgreementPhrase(again, merchant)).toBe(decision);
  });

  it('refuses a phrase with ANY one character changed (prefix, iv, tag, ciphertext, last character)', async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    for (let i = 0; i < phrase.length; i++) {
      expect(await readAgreementPhrase(flip(phrase, i), merchant), `position ${i}`).toBeUndefined();
    }
  });

  it('refuses a phrase with any one bit of its bytes flipped', async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    const bytes = Buffer.from(phrase.slice(3), 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      for (const bit of [0, 7]) {
        const copy = Buffer.from(bytes);
        copy[i] = copy[i]! ^ (1 << bit);
        expect(await readAgreementPhrase(`ap_${copy.toString('base64url')}`, merchant), `byte ${i} bit ${bit}`).toBeUndefined();
      }
    }
  });

  it('refuses truncated and extended phrases', async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    for (const cut of [1, 2, 5, 20, phrase.length - 4]) {
      expect(await readAgreementPhrase(phrase.slice(0, phrase.length - cut), merchant)).toBeUndefined();
    }
    expect(await readAgreementPhrase(`${phrase}A`, merchant)).toBeUndefined();
    expect(await readAgreementPhrase(`${phrase}AAAA`, merchant)).toBeUndefined();
  });

  it('refuses a phrase sealed with another key (wrong key)', async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    useKey(keyB);
    expect(await readAgreementPhrase(phrase, merchant)).toBeUndefined();
    // ...and a phrase of key B under key A.
    const fromB = await issueAgreementPhrase(decision, merchant);
    useKey(keyA);
    expect(await readAgreementPhrase(fromB, merchant)).toBeUndefined();
    expect(await readAgreementPhrase(phrase, merchant)).toBe(decision);
  });

  it("refuses another merchant's phrase", async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    expect(await readAgreementPhrase(phrase, other)).toBeUndefined();
    const theirs = await issueAgreementPhrase(decisionId(other, 'cus_x'), other);
    expect(await readAgreementPhrase(theirs, merchant)).toBeUndefined();
    expect(await readAgreementPhrase(theirs, other)).toBe(decisionId(other, 'cus_x'));
  });

  it('refuses garbage without throwing', async () => {
    const phrase = await issueAgreementPhrase(decision, merchant);
    const garbage: unknown[] = [
      '',
      'ap_',
      'ap_!!!!',
      `ap_ ${phrase.slice(3)}`,
      phrase.slice(3),
      `lp_${phrase.slice(3)}`,
      `AP_${phrase.slice(3)}`,
      `ap_${'A'.repeat(600)}`,
      `ap_${Buffer.from(`{"d":"dec_x","m":"${merchant}","v":1}`).toString('base64url')}`,
      'x'.repeat(10_000),
      null,
      undefined,
      42,
      {},
      [phrase],
    ];
    for (const g of garbage) expect(await readAgreementPhrase(g, merchant)).toBeUndefined();
    expect(await readAgreementPhrase(phrase, '')).toBeUndefined();
  });
});
