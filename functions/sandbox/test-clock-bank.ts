/**
 * A clocked advance never outruns a bank (DESIGN 9.2). A billing made on a test clock goes to
 * its bank as `billing.request` in real time, and a bank that is not simulated answers in real
 * time too; the clock, meanwhile, may be racing through months. So before the advance runs a
 * due entry that is the DEADLINE of a bank's answer:
 *
 *  - `recurring.run` of a schedule whose run's billing is at the bank, at or past `runAnswerBy`
 *    (the worker would fail the billing as `bank_no_answer`);
 *  - `billing.expiry` of a billing awaiting the customer's approval (it would expire);
 *
 * and that billing is still `pending` at a bank that answers in real time, the advance waits
 * for the answer (real time) up to `TEST_CLOCK_BANK_WAIT_SECONDS` (functions/config.ts). The
 * clock stands at its current time meanwhile, so the answer lands at that time
 * (billing/bank-answer.ts answers at the clock's `frozenTime`), before the deadline.
 *
 * A simulated bank answers on the clock itself (its answer is a due entry of the clock,
 * SANDBOX_BANK_DELAY_SECONDS after the request, which runs before the deadline): no wait.
 */
import { EXPIRY_KIND } from '../billing/bill-item';
import { billKey, type BillItem } from '../bills/types';
import { config } from '../config';
import { participantKey } from '../identity/participant-store';
import { parseDueSk, type DueEntry } from '../platform/due';
import { sleep } from '../platform/retry';
import { batchGet, type Item } from '../platform/table';
import { RECURRING_RUN_KIND } from '../recurring/policy';
import type { ScheduleItem } from '../recurring/views';

/** How often a waiting advance looks at the billings (and at its clock). */
const POLL_MS = 100;

export const bankWaitMs = () => config.testClockBankWaitSeconds() * 1000;

/** The billing whose answer deadline the entry is, given the entry's item (undefined: none). */
function deadlineOf(entry: DueEntry, item: Item | undefined, atMs: number): string | undefined {
  if (!item) return undefined;
  const kind = parseDueSk(entry.dueSk).kind;
  if (kind === EXPIRY_KIND) return (item as BillItem).status === 'pending' ? (item as BillItem).billingRequestId : undefined;
  if (kind !== RECURRING_RUN_KIND) return undefined;
  const s = item as ScheduleItem;
  const awaiting = s.runSeq !== undefined && s.outcomeSeq !== s.runSeq && s.runBillingRequestId !== undefined;
  return awaiting && s.runAnswerBy !== undefined && Date.parse(s.runAnswerBy) <= atMs ? s.runBillingRequestId : undefined;
}

/**
 * The billings (ids) the entries due at `atMs` are the answer deadlines of, still pending at a
 * bank that answers in real time, leaving out `skip` (waited for already in this step).
 */
export async function awaitedBillings(entries: readonly DueEntry[], atMs: number, skip: ReadonlySet<string>): Promise<string[]> {
  const relevant = entries.filter((e) => [EXPIRY_KIND, RECURRING_RUN_KIND].includes(parseDueSk(e.dueSk).kind));
  if (relevant.length === 0) return [];
  const items = await batchGet<Item>(relevant.map((e) => ({ pk: e.pk, sk: e.sk })));
  const ids = [...new Set(relevant.map((e) => deadlineOf(e, items.get(e.pk), atMs)))].filter(
    (id): id is string => id !== undefined && !skip.has(id),
  );
  if (ids.length === 0) return [];
  const bills = [...(await batchGet<BillItem>(ids.map(billKey))).values()].filter((b) => b.status === 'pending');
  if (bills.length === 0) return [];
  const banks = await batchGet<Item>([...new Set(bills.map((b) => b.bankId))].map(participantKey));
  return bills.filter((b) => banks.get(participantKey(b.bankId).pk)?.simulated !== true).map((b) => b.billingRequestId);
}

/**
 * Wait (real time, up to `waitMs`) until none of the billings is pending any more. Stops early
 * when `stillOurs` turns false (the clock was deleted); returns its last answer.
 */
export async function waitForAnswers(ids: readonly string[], waitMs: number, stillOurs: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    if (!(await stillOurs())) return false;
    const bills = await batchGet<BillItem>(ids.map(billKey), ['status']);
    if ([...bills.values()].every((b) => b.status !== 'pending') || Date.now() >= until) return true;
    await sleep(Math.min(POLL_MS, Math.max(0, until - Date.now())));
  }
}
