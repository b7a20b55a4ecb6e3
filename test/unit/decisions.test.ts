import { describe, expect, it } from 'vitest';
import {
  DECISION_VALUES,
  allowedDecisions,
  billingAllowed,
  billingRefusal,
  customerAction,
  decisionAllowedFor,
  decisionId,
  isApproval,
  isDecisionIdShaped,
  isDecisionValue,
  billingRequiresApproval,
  withinSingleLimit,
  type DecisionValue,
} from '../../functions/domain/decisions';
import { NEW_MERCHANT_TRUST, type TrustState } from '../../functions/domain/trust';

const d = (decision: DecisionValue, blockMerchant = false) => ({ decision, blockMerchant });

describe('decision outcome (DESIGN 6.9)', () => {
  it('customerAction is approved exactly for an approval without a block', () => {
    expect(customerAction(d('approve_once'))).toBe('approved');
    expect(customerAction(d('approve_recurring'))).toBe('approved');
    expect(customerAction(d('deny'))).toBe('declined');
    expect(customerAction(d('suspended'))).toBe('declined');
    for (const v of DECISION_VALUES) expect(customerAction(d(v, true))).toBe('declined');
  });

  it('isApproval: approve_once and approve_recurring only', () => {
    expect(DECISION_VALUES.filter(isApproval)).toEqual(['approve_once', 'approve_recurring']);
  });

  it('deny, suspended and blockMerchant stop all billing; no decision stops it too', () => {
    expect(billingAllowed(d('approve_once'))).toBe(true);
    expect(billingAllowed(d('approve_recurring'))).toBe(true);
    expect(billingAllowed(d('deny'))).toBe(false);
    expect(billingAllowed(d('suspended'))).toBe(false);
    expect(billingAllowed(d('approve_recurring', true))).toBe(false);
    expect(billingAllowed(d('approve_once', true))).toBe(false);
    expect(billingAllowed(undefined)).toBe(false);
  });

  it('billingRefusal follows the bill precedence: blocked first, then not approved', () => {
    expect(billingRefusal(d('approve_once'))).toBeUndefined();
    expect(billingRefusal(d('approve_recurring'))).toBeUndefined();
    expect(billingRefusal(d('deny', true))).toBe('merchant_blocked');
    expect(billingRefusal(d('approve_once', true))).toBe('merchant_blocked');
    expect(billingRefusal(d('deny'))).toBe('not_approved');
    expect(billingRefusal(d('suspended'))).toBe('not_approved');
    expect(billingRefusal(undefined)).toBe('not_approved');
  });

  it('billingRequiresApproval: every billing but an approve_recurring one of a merchant trusted NOW asks the customer', () => {
    const trusted: TrustState = { trusted: true, trustLevel: 'premium', deviceLookupEnabled: false };
    expect(billingRequiresApproval('agreement', d('approve_recurring'), trusted)).toBe(false);
    expect(billingRequiresApproval('agreement', d('approve_once'), trusted)).toBe(true);
    // A merchant no longer trusted: approve_recurring asks again, like approve_once (DESIGN 8.1).
    expect(billingRequiresApproval('agreement', d('approve_recurring'), NEW_MERCHANT_TRUST)).toBe(true);
    expect(billingRequiresApproval('agreement', d('approve_recurring'), { ...trusted, trusted: false })).toBe(true);
    // Trust unknown: never without approval.
    expect(billingRequiresApproval('agreement', d('approve_recurring'), undefined)).toBe(true);
  });

  it('withinSingleLimit: no single limit allows any amount; the limit itself is allowed', () => {
    expect(withinSingleLimit({}, 10_000_000)).toBe(true);
    expect(withinSingleLimit({ single: 500_00 }, 500_00)).toBe(true);
    expect(withinSingleLimit({ single: 500_00 }, 500_01)).toBe(false);
    expect(withinSingleLimit({ daily: 1 }, 500_01)).toBe(true);
  });

  it('isDecisionValue', () => {
    for (const v of DECISION_VALUES) expect(isDecisionValue(v)).toBe(true);
    for (const v of ['approve', 'APPROVE_ONCE', '', null, 1]) expect(isDecisionValue(v)).toBe(false);
  });
});

describe('allowed decisions by trust', () => {
  const trusted: TrustState = { trusted: true, trustLevel: 'basic', deviceLookupEnabled: false };
  it('approve_recurring only for a trusted merchant (any level)', () => {
    expect(allowedDecisions(NEW_MERCHANT_TRUST)).toEqual(['approve_once', 'deny', 'suspended']);
    expect(allowedDecisions(trusted)).toEqual(['approve_once', 'approve_recurring', 'deny', 'suspended']);
    expect(allowedDecisions({ trusted: false, trustLevel: 'premium', deviceLookupEnabled: true })).not.toContain('approve_recurring');
    expect(decisionAllowedFor('approve_recurring', NEW_MERCHANT_TRUST)).toBe(false);
    expect(decisionAllowedFor('deny', NEW_MERCHANT_TRUST)).toBe(true);
  });
});

describe('decision identity', () => {
  it('is deterministic per (merchant, customer) and differs between pairs', () => {
    const a = decisionId('mer_1', 'cus_1');
    expect(a).toBe(decisionId('mer_1', 'cus_1'));
    expect(a).toMatch(/^dec_[0-9A-Za-z]{22}$/);
    expect(isDecisionIdShaped(a)).toBe(true);
    expect(decisionId('mer_1', 'cus_2')).not.toBe(a);
    expect(decisionId('mer_2', 'cus_1')).not.toBe(a);
    // Order matters: (merchant, customer) is not (customer, merchant).
    expect(decisionId('cus_1', 'mer_1')).not.toBe(a);
  });

  it('ids are well spread (no collisions over many pairs)', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5000; i++) ids.add(decisionId(`mer_${i % 50}`, `cus_${i}`));
    expect(ids.size).toBe(5000);
  });

  it('isDecisionIdShaped refuses other shapes', () => {
    for (const v of ['dec_', 'dec_short', 'mer_0000000000000000000000', 'dec_000000000000000000000!', undefined]) {
      expect(isDecisionIdShaped(v)).toBe(false);
    }
  });
});

describe('multi-status', async () => {
  const { arrayStatus, arrayReply } = await import('../../functions/http/multi-status');
  it('is the common statusCode, or 207 when they differ', () => {
    expect(arrayStatus([{ statusCode: 200 }, { statusCode: 200 }])).toBe(200);
    expect(arrayStatus([{ statusCode: 404 }])).toBe(404);
    expect(arrayStatus([{ statusCode: 200 }, { statusCode: 404 }])).toBe(207);
    expect(arrayStatus([{ statusCode: 201 }, { statusCode: 403 }, { statusCode: 201 }])).toBe(207);
    expect(() => arrayStatus([])).toThrow();
    const r = arrayReply([{ statusCode: 404, success: false, message: 'Customer not found' }]);
    expect(r).toEqual({ status: 404, body: [{ statusCode: 404, success: false, message: 'Customer not found' }] });
  });
});
