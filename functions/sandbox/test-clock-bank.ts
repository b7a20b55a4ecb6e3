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
export function deadlineOf(entry: Pick<DueEntry, 'dueSk'>, item: Item | undefined, atMs: number): string | undefined {
  if (!item) return undefined;
  const kind = parseDueSk(entry.dueSk).kind;
  if (kind === EXPIRY_KIND) return (item as BillItem).status === 'pending' ? (item as BillItem).billingRequestId : undefined;
  if (kind !== RECURRING_RUN_KIND) return undefined;
  const s = item as ScheduleItem;
  const awaiting = s.runSeq !== undefined && s.outcomeSeq !== s.runSeq && s.runBillingRequestId !== undefined;
  return awaiting && s.runAnswerBy !== undefined && Date.parse(s.runAnswerBy) <= atMs ? s.runBillingRequestId : undefined;
}

/** What one step of an advance knows of the banks it waited for. */
export interface BankWaits {
  /** Billings waited for already: the deadline passes after one wait. */
  billings: Set<string>;
  /** Banks that let a wait run out: not waited for again in this step (a bank not answering at all costs one wait a step). */
  silentBanks: Set<string>;
}

export const newBankWaits = (): BankWaits => ({ billings: new Set(), silentBanks: new Set() });

type Awaited = Pick<BillItem, 'billingRequestId' | 'bankId'>;

/**
 * The billings the entries due at `atMs` are the answer deadlines of, still pending at a bank
 * that answers in real time, leaving out those `waits` knows already.
 */
export async function awaitedBillings(entries: readonly DueEntry[], atMs: number, waits: BankWaits): Promise<Awaited[]> {
  const relevant = entries.filter((e) => [EXPIRY_KIND, RECURRING_RUN_KIND].includes(parseDueSk(e.dueSk).kind));
  if (relevant.length === 0) return [];
  const items = await batchGet<Item>(relevant.map((e) => ({ pk: e.pk, sk: e.sk })));
  const ids = [...new Set(relevant.map((e) => deadlineOf(e, items.get(e.pk), atMs)))].filter(
    (id): id is string => id !== undefined && !waits.billings.has(id),
  );
  if (ids.length === 0) return [];
  const bills = [...(await batchGet<BillItem>(ids.map(billKey))).values()].filter(
    (b) => b.status === 'pending' && !waits.silentBanks.has(b.bankId),
  );
  if (bills.length === 0) return [];
  const banks = await batchGet<Item>([...new Set(bills.map((b) => b.bankId))].map(participantKey));
  return bills.filter((b) => banks.get(participantKey(b.bankId).pk)?.simulated !== true);
}

/**
 * Wait (real time, up to `waitMs`) until none of the billings is pending any more; a bank whose
 * billing is still pending then is silent for the rest of the step. Stops early when
 * `stillOurs` turns false (the clock was deleted) and returns false.
 */
export async function waitForAnswers(
  awaited: readonly Awaited[],
  waitMs: number,
  waits: BankWaits,
  stillOurs: () => Promise<boolean>,
): Promise<boolean> {
  for (const b of awaited) waits.billings.add(b.billingRequestId);
  const until = Date.now() + waitMs;
  for (;;) {
    if (!(await stillOurs())) return false;
    const now = await batchGet<BillItem>(
      awaited.map((b) => billKey(b.billingRequestId)),
      ['status'],
    );
    const pending = awaited.filter((b) => now.get(billKey(b.billingRequestId).pk)?.status === 'pending');
    if (pending.length === 0) return true;
    if (Date.now() >= until) {
      for (const b of pending) waits.silentBanks.add(b.bankId);
      return true;
    }
    await sleep(Math.min(POLL_MS, Math.max(0, until - Date.now())));
  }
}
