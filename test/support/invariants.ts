/**
 * Whole-table invariants the reliability suite checks after a scenario (faults off, the
 * system settled): no partial state anywhere.
 *
 * - ledger: `checkLedger()` (entries = balance shards = pending settlement batches, double
 *   entry, no negative balance);
 * - limits: every pair's counter item equals the sum of its succeeded + pending billings,
 *   per period (month, ISO week, day);
 * - transactions vs ledger: a succeeded billing has exactly one capture entry of its
 *   amount, any other status none; refundedAmount = its completed refunds, refundReserved =
 *   its refunds not failed, at most the amount; (sandbox, optional) no refund left pending; a
 *   completed refund has exactly one refund entry, others none;
 * - outbox: every billing has its `billing.request` event, every answered billing its
 *   `billing.response`, every refund its `refund.requested`; every event's deliveries exist;
 * - deliveries: every delivery is `delivered`, and the receiver got its event id;
 * - settlements: every settlement's lines sum to its amount and count its
 *   transactions and refunds; a transaction names a settlement exactly when one of that
 *   settlement's payment lines is its capture; no line names a settlement that does not exist
 *   (nothing pending: the system is settled); the trial balance is balanced.
 */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../functions/config';
import { billPeriods, type BillItem } from '../../functions/bills/types';
import { dayTotal, monthTotal, PAIR_COUNTER_SK, weekTotal } from '../../functions/domain/limits';
import { db } from '../../functions/platform/clients';
import { checkLedger } from '../../functions/ledger/invariant';
import type { LedgerEntry } from '../../functions/ledger/store';
import { trialBalance } from '../../functions/ledger/reports';
import type { DisputeItem } from '../../functions/disputes/views';
import { lineSettlementId, signedLineAmount, type SettlementLine, type SettlementRecord } from '../../functions/ledger/settlement-views';
import { settlementIdsOf } from '../../functions/transactions/store';
import type { RefundItem } from '../../functions/refunds/views';
import { table } from '../../functions/platform/table';
import type { DeliveryItem } from '../../functions/webhooks/delivery-store';
import type { Receiver } from '../../local/receiver';

export async function scanAll(): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await db().send(new ScanCommand({ TableName: table(), ExclusiveStartKey: start, ConsistentRead: true }));
    out.push(...((r.Items ?? []) as Record<string, unknown>[]));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Items on the due index at or before `at` (every shard). */
export async function dueCount(at: Date): Promise<number> {
  let n = 0;
  for (let s = 0; s < config.dueShards(); s++) {
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db().send(
        new QueryCommand({
          TableName: table(),
          IndexName: 'due',
          KeyConditionExpression: 'duePk = :p AND dueSk <= :t',
          ExpressionAttributeValues: { ':p': `DUE#${s}`, ':t': `${at.toISOString()}#~` },
          Select: 'COUNT',
          ExclusiveStartKey: start,
        }),
      );
      n += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
  }
  return n;
}

const prefixed = <T>(items: Record<string, unknown>[], prefix: string) => items.filter((i) => String(i.pk).startsWith(prefix)) as T[];

export interface Report {
  problems: string[];
  counts: Record<string, number>;
}

export async function checkInvariants(
  opts: {
    receiver?: Receiver;
    deliveries?: 'delivered' | 'final';
    /** Sandbox, after recovery: every refund has reached completed or failed (auto-completion is due), none is stuck. */
    refundsFinal?: boolean;
  } = {},
): Promise<Report> {
  const items = await scanAll();
  const problems: string[] = [];
  const bills = prefixed<BillItem>(items, 'BILL#');
  const refunds = prefixed<RefundItem>(items, 'REFUND#');
  const disputes = prefixed<DisputeItem>(items, 'DISPUTE#');
  // Since issue 50 a capture's entry is its settlement line and a settlement's its record (items with debit and credit).
  const entries = [
    ...prefixed<LedgerEntry>(items, 'LEDGER#'),
    ...[...prefixed<LedgerEntry>(items, 'SLINE#'), ...prefixed<LedgerEntry>(items, 'STL#')].filter((l) => l.debit !== undefined),
  ];
  const events = prefixed<{
    id: string;
    type: string;
    to: string;
    data: Record<string, unknown>;
    deliveryIds?: string[];
    endpointId?: string;
  }>(items, 'EVT#');
  const receipts = prefixed<{ pk: string; eventId: string; dlv?: Set<string> }>(items, 'EVR#');
  const deliveries = prefixed<DeliveryItem>(items, 'WHDL#').filter((d) => d.sk === 'WHDL');
  const counters = prefixed<Record<string, unknown>>(items, 'LIM#');

  // Ledger.
  const ledger = await checkLedger();
  problems.push(...ledger.problems.map((p) => `ledger: ${p}`));
  if (ledger.imbalance !== 0) problems.push(`ledger: imbalance ${ledger.imbalance}`);

  // Limits: counters = succeeded + pending, per decision and period, on the pair's counter item
  // (`LIM#<decision>` / `C`: m<month>, w<week>, d<day>; days and weeks that are over are removed
  // by the next billing, so one absent is checked only when no later one of its kind is there).
  const expected = new Map<string, number>();
  const add = (k: string, v: number) => expected.set(k, (expected.get(k) ?? 0) + v);
  for (const b of bills) {
    if (b.status !== 'succeeded' && b.status !== 'pending') continue;
    const periods = billPeriods(b);
    add(`LIM#${b.decisionId}|${monthTotal(periods.month)}`, b.amount);
    add(`LIM#${b.decisionId}|${weekTotal(periods.week)}`, b.amount);
    add(`LIM#${b.decisionId}|${dayTotal(periods.day)}`, b.amount);
  }
  const actual = new Map<string, number>();
  const newest = new Map<string, string>();
  for (const c of counters) {
    if (c.sk !== PAIR_COUNTER_SK) {
      problems.push(`limits: ${String(c.pk)} ${String(c.sk)} is a month/week item (release 3 counts on the pair's counter item)`);
      continue;
    }
    for (const [k, v] of Object.entries(c)) {
      if (!/^[mwd]\d{4}-/.test(k)) continue;
      actual.set(`${String(c.pk)}|${k}`, Number(v));
      const kind = `${String(c.pk)}|${k[0]}`;
      if ((newest.get(kind) ?? '') < k) newest.set(kind, k);
    }
  }
  for (const k of new Set([...expected.keys(), ...actual.keys()])) {
    const e = expected.get(k) ?? 0;
    const a = actual.get(k);
    const [pk, attr] = k.split('|') as [string, string];
    if (a === undefined && attr[0] !== 'm' && (newest.get(`${pk}|${attr[0]}`) ?? '') > attr) continue;
    if (e !== (a ?? 0)) problems.push(`limits: ${k} counter ${a ?? 0} != succeeded + pending ${e}`);
  }

  // Transactions vs ledger entries.
  const byEntry = new Map<string, LedgerEntry[]>();
  for (const e of entries) byEntry.set(e.entryId, [...(byEntry.get(e.entryId) ?? []), e]);
  const disputesOf = new Map<string, DisputeItem[]>();
  for (const d of disputes) disputesOf.set(d.billingRequestId, [...(disputesOf.get(d.billingRequestId) ?? []), d]);
  // Every dispute moved its money once, and once more when it closed (won: back; lost: to the bank).
  for (const d of disputes) {
    for (const [kind, wanted] of [
      ['dispute', true],
      ['dispute_reversal', d.status === 'won'],
      ['dispute_lost', d.status === 'lost'],
    ] as const) {
      const es = byEntry.get(`${kind}:${d.disputeId}`) ?? [];
      if (es.length !== (wanted ? 1 : 0) || es.some((e) => e.amount !== d.amount))
        problems.push(`dispute ${d.disputeId} (${d.status}): ${es.length} ${kind} entries`);
    }
  }
  const refundsOf = new Map<string, RefundItem[]>();
  for (const r of refunds) refundsOf.set(r.billingRequestId, [...(refundsOf.get(r.billingRequestId) ?? []), r]);
  for (const b of bills) {
    const captures = byEntry.get(`capture:${b.billingRequestId}`) ?? [];
    if (b.status === 'succeeded') {
      if (captures.length !== 1 || captures[0]!.amount !== b.amount)
        problems.push(
          `bill ${b.billingRequestId} succeeded with ${captures.length} capture entries (${captures.map((c) => c.amount)}) for ${b.amount}`,
        );
    } else if (captures.length) problems.push(`bill ${b.billingRequestId} is ${b.status} but has a capture entry`);
    const rs = refundsOf.get(b.billingRequestId) ?? [];
    const ds = disputesOf.get(b.billingRequestId) ?? [];
    // refundReserved counts every refund that is not failed (completed ones stay reserved: refunds/store.ts)
    // and every dispute that is open or lost (bills/claims.ts: one rule for both).
    const completed = rs.filter((r) => r.status === 'completed').reduce((s, r) => s + r.amount, 0);
    const disputed = ds.filter((d) => d.status !== 'won').reduce((s, d) => s + d.amount, 0);
    const reserved = rs.filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount, 0) + disputed;
    if ((b.refundedAmount ?? 0) !== completed)
      problems.push(`bill ${b.billingRequestId}: refundedAmount ${b.refundedAmount} != completed refunds ${completed}`);
    if ((b.refundReserved ?? 0) !== reserved)
      problems.push(`bill ${b.billingRequestId}: refundReserved ${b.refundReserved} != refunds not failed + disputes not won ${reserved}`);
    if ((b.disputedAmount ?? 0) !== disputed)
      problems.push(`bill ${b.billingRequestId}: disputedAmount ${b.disputedAmount} != disputes not won ${disputed}`);
    if (reserved > b.amount) problems.push(`bill ${b.billingRequestId}: refunds and disputes ${reserved} exceed amount ${b.amount}`);
    if (rs.length && b.status !== 'succeeded') problems.push(`bill ${b.billingRequestId} is ${b.status} but has refunds`);
  }
  for (const r of refunds) {
    if (opts.refundsFinal && r.status !== 'completed' && r.status !== 'failed') {
      const { pk: _pk, sk: _sk, gsi2pk: _g, gsi2sk: _g2, ...rest } = r;
      problems.push(`refund ${r.refundId} is still ${r.status}: ${JSON.stringify(rest)}`);
    }
    const es = byEntry.get(`refund:${r.refundId}`) ?? [];
    if (r.status === 'completed') {
      if (es.length !== 1 || es[0]!.amount !== r.amount)
        problems.push(`refund ${r.refundId} completed with ${es.length} ledger entries for ${r.amount}`);
    } else if (es.length) problems.push(`refund ${r.refundId} is ${r.status} but has a ledger entry`);
  }

  // Outbox: every state change has its event.
  const eventsFor = (type: string, key: string) => new Set(events.filter((e) => e.type === type).map((e) => String(e.data?.[key])));
  const requests = eventsFor('billing.request', 'billingRequestId');
  const responses = eventsFor('billing.response', 'billingRequestId');
  const refundRequested = eventsFor('refund.requested', 'refundId');
  for (const b of bills) {
    if (!requests.has(b.billingRequestId)) problems.push(`bill ${b.billingRequestId}: no billing.request event`);
    if (b.status !== 'pending' && !responses.has(b.billingRequestId))
      problems.push(`bill ${b.billingRequestId} (${b.status}): no billing.response event`);
  }
  for (const r of refunds) if (!refundRequested.has(r.refundId)) problems.push(`refund ${r.refundId}: no refund.requested event`);

  // Deliveries: every event was fanned out from the stream (its addressee has its receipt),
  // every delivery a receipt names exists and was delivered (and the receiver has it).
  const deliveryById = new Map(deliveries.map((d) => [d.id, d]));
  for (const e of events)
    for (const id of e.deliveryIds ?? []) if (!deliveryById.has(id)) problems.push(`event ${e.id} (${e.type}): delivery ${id} missing`);
  const receiptsOf = new Map<string, typeof receipts>();
  for (const r of receipts) receiptsOf.set(r.eventId, [...(receiptsOf.get(r.eventId) ?? []), r]);
  for (const e of events) {
    if (e.deliveryIds !== undefined) continue; // made by a release-2 outbox
    const mine = receiptsOf.get(e.id) ?? [];
    if (!mine.some((r) => r.pk.startsWith(`EVR#${e.to}#`)))
      problems.push(`event ${e.id} (${e.type}): never fanned out (no receipt for ${e.to})`);
    for (const r of mine)
      for (const id of r.dlv ?? []) if (!deliveryById.has(id)) problems.push(`event ${e.id} (${e.type}): delivery ${id} missing`);
  }
  const received = new Map<string, Set<string>>();
  for (const req of opts.receiver?.requests ?? []) {
    if (req.status < 200 || req.status >= 300) continue;
    const id = req.headers['x-webhook-id'];
    if (id) received.set(id, (received.get(id) ?? new Set()).add(req.path));
  }
  const endpoints = new Map(
    prefixed<{ sk: string; url: string }>(items, 'WHEP#')
      .filter((e) => e.sk.startsWith('EP#'))
      .map((e) => [e.sk.slice(3), e.url]),
  );
  for (const d of deliveries) {
    const final = opts.deliveries === 'final' ? d.status !== 'pending' : d.status === 'delivered';
    if (!final) {
      const { attemptLog: _log, pk: _pk, sk: _sk, gsi2pk: _g, gsi2sk: _g2, ...rest } = d;
      problems.push(
        `delivery ${d.id} (${d.eventType}) is ${d.status} after ${d.attempts} attempts: ${JSON.stringify(rest)} log ${JSON.stringify(d.attemptLog)}`,
      );
    }
    if (opts.receiver && d.status === 'delivered') {
      const url = endpoints.get(d.endpointId);
      const path = url ? new URL(url).pathname : undefined;
      if (path && !received.get(d.eventId)?.has(path))
        problems.push(`delivery ${d.id} is delivered but ${path} never got event ${d.eventId}`);
    }
  }

  // Settlements and their lines: a line belongs to the settlement its round names once that committed.
  const settlements = new Map(prefixed<SettlementRecord>(items, 'STL#').map((r) => [r.settlementId, r]));
  const lines = prefixed<SettlementLine>(items, 'SLINE#');
  const linesOf = new Map<string, SettlementLine[]>();
  for (const l of lines) {
    const id = lineSettlementId(l);
    if (id && settlements.has(id)) linesOf.set(id, [...(linesOf.get(id) ?? []), l]);
    else if (l.settlementId) problems.push(`line ${l.pk}/${l.sk} stamped for settlement ${l.settlementId}, which never committed`);
  }
  for (const [id, r] of settlements) {
    const ls = linesOf.get(id) ?? [];
    const total = ls.reduce((s, l) => s + signedLineAmount(l), 0);
    if (r.linesComplete && total !== r.amount) problems.push(`settlement ${id}: lines sum to ${total}, amount ${r.amount}`);
    const payments = ls.filter((l) => l.type === 'payment').length;
    const refundLines = ls.filter((l) => l.type === 'refund').length;
    if (payments !== r.transactionCount || refundLines !== r.refundCount)
      problems.push(`settlement ${id}: ${payments}/${refundLines} lines for counts ${r.transactionCount}/${r.refundCount}`);
    if (r.dueSk !== undefined) problems.push(`settlement ${id}: still on the due index (${r.dueSk})`);
  }
  const paidBy = new Map<string, string>();
  for (const [id, ls] of linesOf) for (const l of ls) if (l.type === 'payment') paidBy.set(l.billingRequestId, id);
  // What the API says (GET /v1/transactions...): the settlement that paid each transaction, or none yet.
  const shown = await settlementIdsOf(bills);
  for (const b of bills) {
    const named = b.settlementId ?? shown.get(b.billingRequestId);
    if (named !== paidBy.get(b.billingRequestId))
      problems.push(`bill ${b.billingRequestId}: settlementId ${named} but paid by ${paidBy.get(b.billingRequestId)}`);
  }
  const tb = await trialBalance();
  if (!tb.balanced) problems.push(`trial balance not balanced: debit ${tb.totalDebit}, credit ${tb.totalCredit}`);

  return {
    problems,
    counts: {
      settlements: settlements.size,
      settlementLines: lines.length,
      bills: bills.length,
      succeeded: bills.filter((b) => b.status === 'succeeded').length,
      refunds: refunds.length,
      completedRefunds: refunds.filter((r) => r.status === 'completed').length,
      ledgerEntries: entries.length,
      events: events.length,
      deliveries: deliveries.length,
      delivered: deliveries.filter((d) => d.status === 'delivered').length,
    },
  };
}
