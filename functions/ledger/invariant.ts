/**
 * The ledger invariant (docs/decisions/ledger.md): every merchant's entries balance, the
 * balance the API shows (settled: the balance shards; unsettled: the pending settlement
 * batches) equals what the entries say.
 */
import { scanPages } from '../platform/table';
import { accounts, readBalance, readMerchantBatches, readMerchantEntries, type Balance } from './store';
export interface LedgerCheck {
  merchantId: string;
  /** Recomputed from the ledger entries. */
  entries: Balance;
  /** The balance `readBalance` shows: settled from the balance shards, unsettled from the pending batches. */
  shards: Balance;
  /** Sum of pending batch amounts (must equal the unsettled balance). */
  pendingBatches: number;
  entryCount: number;
  /** Per account: Σ debits − Σ credits of this merchant's entries. */
  net: Record<string, number>;
  problems: string[];
}

/**
 * Recomputes the merchant's balances from its ledger entries and compares them with the
 * shards and the pending settlement batches; checks every entry is well formed and that
 * no balance is negative. Read-only (tests and ops).
 */
export async function checkMerchantLedger(merchantId: string): Promise<LedgerCheck> {
  const batches = await readMerchantBatches(merchantId);
  const [entries, shards] = await Promise.all([
    readMerchantEntries(merchantId, batches), // its captures' and settlements' entries are found from the batches
    readBalance(merchantId).then(({ settled, unsettled }) => ({ settled, unsettled })),
  ]);
  const problems: string[] = [];
  const unsettledAcct = accounts.unsettled(merchantId);
  const settledAcct = accounts.settled(merchantId);
  const disputesAcct = accounts.disputes(merchantId);
  let disputesHeld = 0;
  const sums: Balance = { unsettled: 0, settled: 0 };
  const ids = new Set<string>();
  const net: Record<string, number> = {};
  for (const e of entries) {
    net[e.debit] = (net[e.debit] ?? 0) + e.amount;
    net[e.credit] = (net[e.credit] ?? 0) - e.amount;
    if (!Number.isSafeInteger(e.amount) || e.amount <= 0) problems.push(`entry ${e.entryId}: bad amount ${e.amount}`);
    if (e.debit === e.credit) problems.push(`entry ${e.entryId}: debit equals credit`);
    if (ids.has(e.entryId)) problems.push(`entry ${e.entryId}: posted twice`);
    ids.add(e.entryId);
    for (const [acct, sign] of [
      [e.credit, 1],
      [e.debit, -1],
    ] as const) {
      if (acct === unsettledAcct) sums.unsettled += sign * e.amount;
      else if (acct === settledAcct) sums.settled += sign * e.amount;
      else if (acct === disputesAcct) disputesHeld += sign * e.amount;
      else if (!acct.startsWith('bank:')) problems.push(`entry ${e.entryId}: unknown account ${acct}`);
    }
  }
  const pendingBatches = batches.filter((b) => b.status === 'pending').reduce((s, b) => s + (b.amount ?? 0), 0);
  if (sums.unsettled !== shards.unsettled) problems.push(`unsettled: entries ${sums.unsettled} != shards ${shards.unsettled}`);
  if (sums.settled !== shards.settled) problems.push(`settled: entries ${sums.settled} != shards ${shards.settled}`);
  if (pendingBatches !== sums.unsettled) problems.push(`unsettled ${sums.unsettled} != pending batches ${pendingBatches}`);
  // A dispute may take a balance (and its settlement day) below zero; nothing else may.
  const disputed = entries.some((e) => e.kind === 'dispute');
  if (!disputed && (sums.unsettled < 0 || sums.settled < 0)) problems.push(`negative balance ${JSON.stringify(sums)}`);
  if (!disputed) for (const b of batches) if ((b.amount ?? 0) < 0) problems.push(`batch ${b.sk}: negative amount ${b.amount}`);
  if (disputesHeld < 0) problems.push(`disputes account holds ${disputesHeld}`);
  return { merchantId, entries: sums, shards, pendingBatches, entryCount: entries.length, net, problems };
}

export interface LedgerReport {
  merchants: LedgerCheck[];
  /** Σ debits − Σ credits over every entry and account: 0 when every entry is double-sided. */
  imbalance: number;
  /** Per bank account: Σ debits − Σ credits (what each bank owes us, net of refunds). */
  banks: Record<string, number>;
  problems: string[];
}

/** Every merchant with money items in the table (a Scan: tests and ops only). */
export async function moneyMerchants(): Promise<string[]> {
  const ids = new Set<string>();
  await scanPages(
    {
      ProjectionExpression: 'pk',
      FilterExpression: 'begins_with(pk, :l) OR begins_with(pk, :b) OR begins_with(pk, :s)',
      ExpressionAttributeValues: { ':l': 'LEDGER#', ':b': 'BAL#', ':s': 'SETTLE#' },
      ConsistentRead: true,
    },
    (page) => {
      for (const it of page) ids.add(String(it.pk).split('#')[1]!); // LEDGER#<m>#<n> too
    },
  );
  return [...ids].sort();
}

/** The ledger invariant over every merchant (tests run it after each scenario). */
export async function checkLedger(merchantIds?: string[]): Promise<LedgerReport> {
  const ids = merchantIds ?? (await moneyMerchants());
  const merchants = await Promise.all(ids.map(checkMerchantLedger));
  const net = new Map<string, number>();
  for (const m of merchants) for (const [acct, v] of Object.entries(m.net)) net.set(acct, (net.get(acct) ?? 0) + v);
  const banks: Record<string, number> = {};
  let imbalance = 0;
  let merchantTotal = 0;
  for (const [acct, v] of net) {
    imbalance += v;
    if (acct.startsWith('bank:')) banks[acct] = v;
    else merchantTotal -= v;
  }
  const problems = merchants.flatMap((m) => m.problems.map((p) => `${m.merchantId}: ${p}`));
  if (imbalance !== 0) problems.push(`debits and credits differ by ${imbalance}`);
  const bankTotal = Object.values(banks).reduce((s, v) => s + v, 0);
  // What the merchants are owed equals what the banks owe: nothing created or lost.
  if (merchantTotal !== bankTotal) problems.push(`merchants are owed ${merchantTotal}, banks owe ${bankTotal}`);
  return { merchants, imbalance, banks, problems };
}

/** A ledger entry by key (refunds read a bill's capture entry). */
