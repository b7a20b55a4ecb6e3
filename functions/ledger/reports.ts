/**
 * Reconciliation reports (DESIGN 8.8), read-only:
 *
 * - the bank settlement report: what a bank's customers paid each merchant on one Lagos day
 *   (the day the billing succeeded) and what came back to them (refunds completed that day),
 *   from the sharded day counters the capture and refund transactions write
 *   (`BREP#<bankId>#<day>#<p>`, ledger/day-counters.ts `dayCounterAdd`): one Query per partition, at once.
 * - the operator's trial balance: Σ debits and Σ credits per account over every ledger
 *   entry. Every entry debits one account and credits another with one amount, so the
 *   totals agree whatever the workload; the report proves it from the entries themselves.
 */
import { toMajor } from '../domain/money';
import { queryPartitions, scanPages } from '../platform/table';
import { bankDayPartitions, type BankDayCounter } from './day-counters';
import { LEDGER_ENTRY_FILTER, type LedgerEntry } from './store';

export interface BankReport {
  businessDate: string;
  debits: number;
  credits: number;
  net: number;
  transactionCount: number;
  byMerchant: { entityId: string; merchantName: string; amount: number; count: number }[];
}

/** A bank's report for one Lagos day (amounts in major units; `byMerchant` nets refunds, sorted by entityId). */
export async function bankSettlementReport(bankId: string, date: string): Promise<BankReport> {
  const counters = await queryPartitions<BankDayCounter>(
    bankDayPartitions(bankId, date),
    { ConsistentRead: true },
    { maxItems: 1_000_000 },
  );
  const byMerchant = new Map<string, { entityId: string; merchantName: string; captured: number; refunded: number; count: number }>();
  let debits = 0;
  let credits = 0;
  let transactionCount = 0;
  for (const c of counters) {
    const m = byMerchant.get(c.merchantId) ?? { entityId: c.merchantId, merchantName: '', captured: 0, refunded: 0, count: 0 };
    if (!m.merchantName && c.merchantName) m.merchantName = c.merchantName;
    m.captured += c.captured ?? 0;
    m.refunded += c.refunded ?? 0;
    m.count += c.capturedCount ?? 0;
    byMerchant.set(c.merchantId, m);
    debits += c.captured ?? 0;
    credits += c.refunded ?? 0;
    transactionCount += c.capturedCount ?? 0;
  }
  return {
    businessDate: date,
    debits: toMajor(debits),
    credits: toMajor(credits),
    net: toMajor(debits - credits),
    transactionCount,
    byMerchant: [...byMerchant.values()]
      .sort((a, b) => (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0))
      .map((m) => ({ entityId: m.entityId, merchantName: m.merchantName, amount: toMajor(m.captured - m.refunded), count: m.count })),
  };
}

export interface TrialBalance {
  accounts: { account: string; debit: number; credit: number }[];
  totalDebit: number;
  totalCredit: number;
  balanced: boolean;
}

/**
 * The trial balance over every ledger entry (a Scan of the entries' attributes: an operator
 * report, not a hot path; docs/decisions/reconciliation-reports.md says how it scales).
 */
export async function trialBalance(): Promise<TrialBalance> {
  const sums = new Map<string, { debit: number; credit: number }>();
  let malformed = 0;
  const post = (account: unknown, side: 'debit' | 'credit', amount: number) => {
    if (typeof account !== 'string' || account === '') return void malformed++;
    const v = sums.get(account) ?? { debit: 0, credit: 0 };
    v[side] += amount;
    sums.set(account, v);
  };
  await scanPages(
    {
      ProjectionExpression: 'debit, credit, amount',
      // Since issue 50 a capture's entry is its settlement line and a settlement's is its record (ledger/store.ts).
      FilterExpression: `begins_with(pk, :l) OR ((begins_with(pk, :s) OR begins_with(pk, :r)) AND ${LEDGER_ENTRY_FILTER})`,
      ExpressionAttributeValues: { ':l': 'LEDGER#', ':s': 'SLINE#', ':r': 'STL#' },
    },
    (page) => {
      for (const e of page as Partial<Pick<LedgerEntry, 'debit' | 'credit' | 'amount'>>[]) {
        // Each side is posted on its own: an entry missing a side, or with a bad amount, unbalances the report.
        const valid = Number.isSafeInteger(e.amount) && e.amount! > 0;
        if (!valid) malformed++;
        const amount = valid ? e.amount! : 0;
        post(e.debit, 'debit', amount);
        post(e.credit, 'credit', amount);
        if (e.debit === e.credit) malformed++;
      }
    },
  );
  const listed = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const totalDebit = listed.reduce((s, [, v]) => s + v.debit, 0);
  const totalCredit = listed.reduce((s, [, v]) => s + v.credit, 0);
  return {
    accounts: listed.map(([account, v]) => ({ account, debit: toMajor(v.debit), credit: toMajor(v.credit) })),
    totalDebit: toMajor(totalDebit),
    totalCredit: toMajor(totalCredit),
    balanced: totalDebit === totalCredit && malformed === 0,
  };
}
