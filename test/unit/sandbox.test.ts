/**
 * Sandbox pure rules: the magic table (functions/sandbox/magic.ts) is consistent and
 * seedable, emails select outcomes, debit answers map to bank-response outcomes, and the
 * outbox hook fires only for simulated banks, only for the events they answer, only in the
 * sandbox stage, SANDBOX_BANK_DELAY_SECONDS after the event.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planBatch } from '../../functions/domain/customers';
import { SANDBOX_BANK_KIND, sandboxBankDelaySeconds, sandboxBankDue } from '../../functions/events/sandbox-bank';
import {
  bankScopedDeviceId,
  MAGIC_CUSTOMERS,
  magicDeviceId,
  magicEmail,
  magicForEmail,
  magicForOutcome,
  magicView,
  seedRecords,
  simulatedBankTransactionId,
} from '../../functions/sandbox/magic';
import { debitOutcome } from '../../functions/sandbox/simulator';
import { parseDueSk } from '../../functions/platform/due';

const env = { ...process.env };
afterEach(() => {
  for (const k of ['STAGE', 'SANDBOX_BANK_DELAY_SECONDS']) {
    if (env[k] === undefined) delete process.env[k];
    else process.env[k] = env[k];
  }
});

describe('magic customers', () => {
  it('covers every outcome the sandbox promises, each selected by a distinct email and device id', () => {
    const outcomes = MAGIC_CUSTOMERS.map((m) => m.outcome);
    expect(outcomes).toEqual([
      'approve_recurring',
      'recurring_limits',
      'approve_two_payments',
      'approve_valid_one_minute',
      'approve_once',
      'deny',
      'suspended',
      'block_merchant',
      'debit_declined',
      'insufficient_funds',
      'dispute_unauthorized',
      'debit_no_answer',
      'no_answer',
    ]);
    expect(new Set(MAGIC_CUSTOMERS.map(magicEmail)).size).toBe(MAGIC_CUSTOMERS.length);
    expect(new Set(MAGIC_CUSTOMERS.map(magicDeviceId)).size).toBe(MAGIC_CUSTOMERS.length);
    expect(magicEmail(magicForOutcome('recurring_limits')!)).toBe('recurring.limits@sandbox.idpay.test');
    expect(magicDeviceId(magicForOutcome('approve_once')!)).toBe('sandbox-device-approve-once');
    expect(magicForOutcome('recurring_limits')!.intent).toEqual({
      customerDecision: 'approve_recurring',
      spendingLimits: { single: 50_000, daily: 100_000, monthly: 1_000_000 },
      blockMerchant: false,
    });
    expect(magicForOutcome('block_merchant')!.intent).toMatchObject({ customerDecision: 'deny', blockMerchant: true });
    // Never answering (to test expiry): intents and debits, or debits only.
    expect(magicForOutcome('no_answer')).toMatchObject({ intent: null, debit: null });
    expect(magicForOutcome('debit_no_answer')).toMatchObject({ intent: { customerDecision: 'approve_once' }, debit: null });
    expect(magicForOutcome('debit_declined')).toMatchObject({ intent: { customerDecision: 'approve_recurring' }, debit: 'deny' });
  });

  it('the seed records pass the customer batch validation as they are (no invalid record, no duplicate)', () => {
    const plan = planBatch(seedRecords());
    expect(plan.failures).toEqual([]);
    expect(plan.candidates.map((c) => c.input.email)).toEqual(MAGIC_CUSTOMERS.map(magicEmail));
  });

  it('an email selects its magic customer case-insensitively; other emails and domains select nothing', () => {
    expect(magicForEmail('Approve.Once@Sandbox.IDPAY.test')?.outcome).toBe('approve_once');
    expect(magicForEmail(' no.answer@sandbox.idpay.test ')?.outcome).toBe('no_answer');
    expect(magicForEmail('approve.once@example.com')).toBeUndefined();
    expect(magicForEmail('approve.once@sub.sandbox.idpay.test')).toBeUndefined();
    expect(magicForEmail('someone@sandbox.idpay.test')).toBeUndefined();
    expect(magicForEmail('@sandbox.idpay.test')).toBeUndefined();
    expect(magicForEmail('not an email')).toBeUndefined();
  });

  it('device ids of a later simulated bank are scoped by its id', () => {
    expect(bankScopedDeviceId(magicForOutcome('deny')!, 'bnk_123')).toBe('sandbox-device-deny.bnk_123');
  });

  it('the public view carries no internal field and copies the limits', () => {
    const m = magicForOutcome('recurring_limits')!;
    const v = magicView(m);
    expect(Object.keys(v).sort()).toEqual([
      'debitResponse',
      'description',
      'deviceId',
      'disputeReason',
      'email',
      'intentResponse',
      'outcome',
    ]);
    v.intentResponse!.spendingLimits.single = 1;
    expect(m.intent!.spendingLimits.single).toBe(50_000);
  });
});

describe('README magic customers table', () => {
  it('lists exactly the magic customers of magic.ts, each with its device id and limits', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `([^`]+@sandbox\.idpay\.test)` \| `([^`]+)` \| (.+) \| (.+) \|$/gm)];
    expect(rows.map((r) => r[1])).toEqual(MAGIC_CUSTOMERS.map(magicEmail));
    MAGIC_CUSTOMERS.forEach((m, i) => {
      const [, , device, intent, debit] = rows[i]!;
      expect(device).toBe(magicDeviceId(m));
      if (m.intent === null) expect(intent).toMatch(/never answered/);
      else expect(intent).toContain(m.intent.customerDecision);
      if (m.intent?.blockMerchant) expect(intent).toContain('blockMerchant: true');
      if (m.intent?.terms?.maxPayments !== undefined) expect(intent).toContain(`maxPayments: ${m.intent.terms.maxPayments}`);
      if (m.intent?.terms?.validForSeconds !== undefined) expect(intent).toContain(`validTo\` ${m.intent.terms.validForSeconds} s later`);
      for (const [period, v] of Object.entries(m.intent?.spendingLimits ?? {}))
        expect(intent).toContain(`${period} ${v.toLocaleString('en-US')}`);
      if (m.debit === null) expect(debit).toMatch(/never answered/);
      else
        expect(debit).toMatch(
          { approve: /approved/, deny: /denied/, suspended: /suspended/, insufficient_funds: /declineReason: insufficient_funds/ }[m.debit],
        );
    });
  });
});

describe('debit answers', () => {
  const bill = (requiresApproval: boolean) => ({ billingRequestId: 'breq_abc', requiresApproval });
  it('approve pays with approve_once when the billing needs approval, approve_recurring otherwise; deny/suspended decline; null never answers', () => {
    const approve = magicForOutcome('approve_once')!;
    expect(debitOutcome(approve, bill(true))).toEqual({ status: 'succeeded', action: 'approve_once', bankTransactionId: 'SBX-breq_abc' });
    expect(debitOutcome(approve, bill(false))).toEqual({
      status: 'succeeded',
      action: 'approve_recurring',
      bankTransactionId: 'SBX-breq_abc',
    });
    expect(debitOutcome(magicForOutcome('debit_declined')!, bill(false))).toEqual({ status: 'declined', action: 'deny' });
    expect(debitOutcome(magicForOutcome('suspended')!, bill(true))).toEqual({ status: 'declined', action: 'suspended' });
    // The bank (not the customer) declines: a recurring run is retried (DESIGN 8.6).
    expect(debitOutcome(magicForOutcome('insufficient_funds')!, bill(false))).toEqual({
      status: 'declined',
      action: 'deny',
      declineReason: 'insufficient_funds',
    });
    expect(debitOutcome(magicForOutcome('no_answer')!, bill(true))).toBeUndefined();
    expect(debitOutcome(magicForOutcome('debit_no_answer')!, bill(true))).toBeUndefined();
    expect(simulatedBankTransactionId('breq_x')).toBe('SBX-breq_x');
  });
});

describe('the outbox hook (sandboxBankDue)', () => {
  const created = Date.parse('2030-01-02T03:04:05.000Z');

  it('a simulated bank in the sandbox: billing.intent and billing.request are due SANDBOX_BANK_DELAY_SECONDS later (default 2)', () => {
    process.env.STAGE = 'sandbox';
    delete process.env.SANDBOX_BANK_DELAY_SECONDS;
    for (const type of ['billing.intent', 'billing.request']) {
      const due = sandboxBankDue({ simulated: true }, type, 'evt_1', created);
      expect(due.duePk).toMatch(/^DUE#\d+$/);
      expect(parseDueSk(due.dueSk!)).toEqual({ at: '2030-01-02T03:04:07.000Z', kind: SANDBOX_BANK_KIND, id: 'evt_1' });
    }
    process.env.SANDBOX_BANK_DELAY_SECONDS = '0';
    expect(parseDueSk(sandboxBankDue({ simulated: true }, 'billing.intent', 'evt_1', created).dueSk!).at).toBe('2030-01-02T03:04:05.000Z');
    process.env.SANDBOX_BANK_DELAY_SECONDS = '0.5';
    expect(parseDueSk(sandboxBankDue({ simulated: true }, 'billing.intent', 'evt_1', created).dueSk!).at).toBe('2030-01-02T03:04:05.500Z');
  });

  it('nothing for other receivers, other event types, or the live stage', () => {
    process.env.STAGE = 'sandbox';
    expect(sandboxBankDue(undefined, 'billing.intent', 'evt_1', created)).toEqual({});
    expect(sandboxBankDue({ simulated: false }, 'billing.intent', 'evt_1', created)).toEqual({});
    expect(sandboxBankDue({ simulated: 'true' }, 'billing.intent', 'evt_1', created)).toEqual({});
    for (const type of ['refund.requested', 'billing.response', 'billing.intent.response', 'webhook.test']) {
      expect(sandboxBankDue({ simulated: true }, type, 'evt_1', created)).toEqual({});
    }
    process.env.STAGE = 'live';
    expect(sandboxBankDue({ simulated: true }, 'billing.intent', 'evt_1', created)).toEqual({});
    expect(sandboxBankDue({ simulated: true }, 'billing.request', 'evt_1', created)).toEqual({});
  });

  it('SANDBOX_BANK_DELAY_SECONDS must be a number >= 0', () => {
    process.env.SANDBOX_BANK_DELAY_SECONDS = '';
    expect(sandboxBankDelaySeconds()).toBe(2);
    process.env.SANDBOX_BANK_DELAY_SECONDS = '5';
    expect(sandboxBankDelaySeconds()).toBe(5);
    for (const bad of ['-1', 'soon']) {
      process.env.SANDBOX_BANK_DELAY_SECONDS = bad;
      expect(() => sandboxBankDelaySeconds()).toThrow(/SANDBOX_BANK_DELAY_SECONDS/);
    }
  });
});
