/**
 * Which due entry of a test clock is the deadline of a bank's answer (DESIGN 9.2;
 * functions/sandbox/test-clock-bank.ts `deadlineOf`): the advance waits for the bank before it
 * runs such an entry, and only then.
 */
import { describe, expect, it } from 'vitest';
import { deadlineOf } from '../../functions/sandbox/test-clock-bank';

const at = Date.parse('2027-02-01T09:00:00.000Z');
const entry = (kind: string) => ({ dueSk: `2027-02-01T09:00:00.000Z#${kind}#x` });
const inFlight = {
  type: 'schedule',
  runSeq: 1,
  runBillingRequestId: 'breq_k1',
  runStartedAt: '2027-01-31T09:00:00.000Z',
  runAnswerBy: '2027-02-01T09:00:00.000Z',
};

describe('deadlineOf', () => {
  it('a schedule whose run is at the bank and whose answer deadline has come: its run billing', () => {
    expect(deadlineOf(entry('recurring.run'), inFlight, at)).toBe('breq_k1');
    expect(deadlineOf(entry('recurring.run'), { ...inFlight, runAnswerBy: '2027-01-31T09:00:00.000Z' }, at)).toBe('breq_k1');
  });

  it('not a deadline: the answer is recorded, the deadline is still ahead, no run in flight (a notice or a run to start)', () => {
    expect(deadlineOf(entry('recurring.run'), { ...inFlight, outcomeSeq: 1 }, at)).toBeUndefined();
    expect(deadlineOf(entry('recurring.run'), { ...inFlight, runAnswerBy: '2027-02-01T09:00:00.001Z' }, at)).toBeUndefined();
    expect(deadlineOf(entry('recurring.run'), { type: 'schedule', nextBillingDate: '2027-02-01T09:00:00.000Z' }, at)).toBeUndefined();
    expect(deadlineOf(entry('recurring.run'), undefined, at)).toBeUndefined();
  });

  it('an approval still pending at its expiry entry: the billing; answered: none', () => {
    expect(deadlineOf(entry('billing.expiry'), { status: 'pending', billingRequestId: 'breq_a' }, at)).toBe('breq_a');
    expect(deadlineOf(entry('billing.expiry'), { status: 'succeeded', billingRequestId: 'breq_a' }, at)).toBeUndefined();
  });

  it('other kinds are never a bank deadline', () => {
    for (const kind of ['settlement', 'sandbox.bank', 'refund.complete', 'decision.validity'])
      expect(deadlineOf(entry(kind), { status: 'pending', billingRequestId: 'breq_a', ...inFlight }, at)).toBeUndefined();
  });
});
