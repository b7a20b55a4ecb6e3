/**
 * Bill lives, counted item by item (DESIGN 9.6): what one bill costs from the merchant's
 * request to the day's settlement, measured on the real local stack with every DynamoDB
 * and SQS request going through the bench's proxies (bench/lib/proxies.ts), whatever code
 * path (handler, SQS worker, stream consumer, tick) makes it.
 *
 * One bill life = a 1-phrase `POST /v1/customer/bill` + the bank's `POST /v1/billing/bank-response`
 * (approve_recurring) + the deliveries they cause (billing.request to the bank, billing.response
 * to the merchant and to its provider: 3, each answered 200 by a local receiver) + its share
 * of the merchant's settlement of the day, at 10 bills per merchant-day (the tick at the
 * settlement's due time settles the 10 bills of the variant's merchant; a tenth of all it
 * writes, its `settlement.completed` deliveries included, is each bill's share).
 *
 * Variants, 10 lives each, one life at a time, each variant on its own merchant (its own
 * merchant-day; the `@1` variants: each life on its own merchant, 1 bill per merchant-day):
 *   first          the decision's first bill (a new customer: nothing of it cached in the process)
 *   repeat         a decision billed before (the customer is cached by the warm process), its
 *                  previous bill more than an hour ago (the bench ages `lastUsed` by 2 h, as a
 *                  subscription's next bill finds it)
 *   ...+key        the same with an Idempotency-Key on both POSTs (the SDK sends one on every POST)
 *   repeat-same-hour+key (for information) the previous bill less than an hour ago
 *
 * Request path: while each HTTP call is in flight, the proxies hold back every consumer poll
 * (SQS ReceiveMessage, Streams GetRecords), so the DynamoDB requests counted in that window
 * are the handler's own, auth included.
 *
 * Then a timing pass (proxies forwarding only: no image reads) gives the per-invocation
 * durations and log bytes of the cost model, and a load phase (BENCH_LOAD_LIVES lives at
 * concurrency BENCH_LOAD_CONCURRENCY over 4 merchants of one provider and one bank, then
 * their settlement) counts the write units per partition key (base table and each GSI),
 * and the read units per partition key, scaled to PEAK_BILLS_PER_SECOND (5,000: DESIGN 10.6).
 */
import { DynamoDBClient, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { decisionKey } from '../functions/decisions/views';
import { sha256Hex } from '../functions/domain/ids';
import { onMetricsLine } from '../functions/platform/metrics';
import { startReceiver, type Receiver } from '../local/receiver';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/services';
import type { DynamoProxy, RequestRecord, SqsProxy, WriteRecord } from './lib/proxies';
import { loadAverage } from './lib/results';
import { startBenchStack, type BenchStack, type Party } from './lib/stack';
import { bump, mapLimit, median, round, summarize } from './lib/stats';

const QUICK = process.env.BENCH_QUICK === '1';
/** Lives per variant = bills per merchant-day of the settlement share. */
export const LIVES_PER_VARIANT = 10;
const LOAD_LIVES = Number(process.env.BENCH_LOAD_LIVES ?? (QUICK ? 60 : 200));
const LOAD_CONCURRENCY = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 8);
const LOAD_MERCHANTS = 4;
/** A national payment day's peak (DESIGN 10.6): the per-key heat is scaled to it. */
export const PEAK_BILLS_PER_SECOND = 5000;
/** What a bill carries (a realistic description: the bill item's size matters near 1 KB). */
const BILL = { amount: 2500, currency: 'NGN', description: 'Premium plan, monthly' };
const LIMITS = { single: 100_000, daily: 1_000_000, weekly: 5_000_000, monthly: 20_000_000 };
const ONE_HOUR_MS = 3600_000;

/** CPU time (user + system) of this process, ms. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export interface Variant {
  id: string;
  label: string;
  first: boolean;
  key: boolean;
  /** The decision's previous bill more than an hour ago (lastUsed aged by the bench). */
  aged: boolean;
  /** Reported, not a target row. */
  info?: boolean;
  /** Bills per merchant-day of the settlement share (LIVES_PER_VARIANT unless 1: each life on its own merchant). */
  perDay?: 1;
}

export const VARIANTS: Variant[] = [
  { id: 'first', label: "a decision's first bill, no Idempotency-Key", first: true, key: false, aged: false },
  { id: 'first+key', label: "a decision's first bill, Idempotency-Key on both POSTs", first: true, key: true, aged: false },
  { id: 'repeat', label: 'a repeat bill (previous one > 1 h before), no Idempotency-Key', first: false, key: false, aged: true },
  {
    id: 'repeat+key',
    label: 'a repeat bill (previous one > 1 h before), Idempotency-Key on both POSTs',
    first: false,
    key: true,
    aged: true,
  },
  {
    id: 'repeat@1',
    label: 'a repeat bill (previous one > 1 h before), no Idempotency-Key, 1 bill per merchant-day',
    first: false,
    key: false,
    aged: true,
    perDay: 1,
  },
  {
    id: 'repeat+key@1',
    label: 'a repeat bill (previous one > 1 h before), Idempotency-Key on both POSTs, 1 bill per merchant-day',
    first: false,
    key: true,
    aged: true,
    perDay: 1,
  },
  {
    id: 'repeat-same-hour+key',
    label: 'a repeat bill within the hour of the previous one, Idempotency-Key on both POSTs',
    first: false,
    key: true,
    aged: false,
    info: true,
  },
];

/** The steps of a life, in order (labels of the proxies: `<variant>|<step>`). */
export const STEPS = ['bill', 'bill:after', 'approval', 'approval:after', 'settlement'] as const;
export type Step = (typeof STEPS)[number];

interface LifeRun {
  billMs: number;
  approvalMs: number;
  /** CPU time of this process during the call (handler, local server, proxies, fauxqs). */
  billCpuMs: number;
  approvalCpuMs: number;
  /** Wall and CPU time from each call's answer until everything it caused has run. */
  asyncMs: number;
  asyncCpuMs: number;
  deliveryBytes: number;
  types: string[];
}

interface Customer {
  customerId: string;
  decisionId: string;
  agreementPhrase: string;
}

interface Merchant extends Party {
  endpointPath: string;
}

/** One step's write units, summed over its items. */
interface Units {
  total: number;
  table: number;
  transactionalExtra: number;
  indexes: Record<string, number>;
  items: number;
}

const emptyUnits = (): Units => ({ total: 0, table: 0, transactionalExtra: 0, indexes: {}, items: 0 });

function addUnits(u: Units, w: WriteRecord): void {
  u.total += w.charge.total;
  u.table += w.charge.table;
  u.transactionalExtra += w.charge.transactionalExtra;
  u.items++;
  for (const [k, v] of Object.entries(w.charge.indexes)) bump(u.indexes, k, v);
}

const perLife = (u: Units, n: number): Units => ({
  total: round(u.total / n),
  table: round(u.table / n),
  transactionalExtra: round(u.transactionalExtra / n),
  indexes: Object.fromEntries(Object.entries(u.indexes).map(([k, v]) => [k, round(v / n)])),
  items: round(u.items / n),
});

/** The item kind of a partition key: its prefix (`BILL#…` → BILL). */
export const kindOf = (pk: string) => pk.split('#')[0] || pk;

export interface VariantResult {
  id: string;
  label: string;
  info: boolean;
  /** Bills per merchant-day of the settlement share. */
  perDay: number;
  lives: number;
  /** Write units per life, all steps (settlement: its share at `perDay` bills). */
  wru: number;
  byStep: Record<Step, Units>;
  /** Per item kind (pk prefix) and step: write units per life, with the mean item size after the write. */
  byKind: {
    kind: string;
    step: string;
    action: string;
    items: number;
    units: number;
    table: number;
    indexes: Record<string, number>;
    bytes: number;
    /** Attributes these writes changed (union). */
    changed: string[];
    /** Of the items, how many did not exist before. */
    created: number;
  }[];
  /** Read units per life (computed from the items returned). */
  rru: number;
  /** DynamoDB requests per life by step and operation. */
  requests: Record<string, Record<string, number>>;
  requestsPerLife: number;
  /** The bill's request path (the HTTP call's window): DynamoDB requests per life. */
  billPath: { mean: number; min: number; max: number; ops: string[]; perLife: number[]; unusual: { life: number; ops: string[] }[] };
  approvalPath: { mean: number; min: number; max: number; ops: string[]; unusual: { life: number; ops: string[] }[] };
  settlement: { writeUnits: number; bills: number; perBill: number; claimed: number; kinds: Record<string, number> };
  /** Transactions cancelled (not charged here) and conditional writes that failed (charged), whole variant. */
  cancelledTransactions: number;
  failedConditions: number;
  /**
   * Writes of the fair-delivery lanes (endpoint items: slow marks, slots) and messages handed to
   * the slow lane: with a receiver that answers at once, only the machine's slowness causes them.
   */
  laneEffects: { endpointWrites: number; endpointUnits: number; slowLaneMessages: number };
  sqs: { requestsPerLife: number; byOp: Record<string, number>; messagesSent: number; lambdaBatches: number };
  /** DynamoDB Streams requests per life (a stream consumer's reads; a Lambda trigger's are free) and its batches. */
  streams: { byOp: Record<string, number>; recordsPerLife: number; batchesPerLife: number };
  deliveries: { perLife: number; bytesPerLife: number; types: Record<string, number> };
  latencyMs: { bill: number; approval: number };
}

export interface TimingResult {
  lives: number;
  billMs: ReturnType<typeof summarize>;
  approvalMs: ReturnType<typeof summarize>;
  /** CPU time of this process during the bill and approval calls (handler + local server + proxies + fauxqs: an upper bound of the handler's). */
  billCpuMs: ReturnType<typeof summarize>;
  approvalCpuMs: ReturnType<typeof summarize>;
  /** CPU time of everything the two calls caused (deliveries), above the idle process's, per life (median). */
  workersCpuMsPerLife: number;
  idleCpuMsPerSecond: number;
  /** SQS-triggered worker invocations: receive → delete, per batch (wall clock, local). */
  workerMs: ReturnType<typeof summarize>;
  workerInvocationsPerLife: number;
  logBytesPerLife: number;
  /** The logger's lines (EMF lines not included): each carries the Lambda context on Lambda (cost.ts). */
  logLinesPerLife: number;
  invocationsPerLife: number;
}

export interface PartitionHeat {
  index: string;
  key: string;
  /** The key with the ids replaced by their owner (`BTXN#<bank>`). */
  shape: string;
  owner: 'bank' | 'provider' | 'merchant' | 'system' | 'item';
  units: number;
  /** Write units on this key per bill of its owner in the load. */
  perOwnerBill: number;
  /** Units/s (WCU/s for writes, RCU/s for reads) at PEAK_BILLS_PER_SECOND when the owner has the assumed share of them (see `shares`). */
  atPeak: number;
  /** The same if all of them were the owner's. */
  atPeakAllBills: number;
}

export interface LoadResult {
  lives: number;
  concurrency: number;
  seconds: number;
  billsPerSecond: number;
  /** Write units per life in the load (a check on the one-at-a-time figures). */
  wruPerLife: number;
  cancelledTransactions: number;
  shares: Record<'bank' | 'provider' | 'merchant' | 'system', number>;
  /** Bills per second the per-key heat is scaled to (DESIGN 10.6). */
  peakBillsPerSecond: number;
  /** Write units per key (base table and GSIs), the hottest key of each shape. */
  hottest: PartitionHeat[];
  /** Read units per key (base table and GSIs), the hottest key of each shape. */
  hottestReads: PartitionHeat[];
  /** The hottest bank- or provider-owned key (the 9.6 sharding target). */
  hottestListKey: PartitionHeat | undefined;
}

export interface LivesResult {
  config: Record<string, unknown>;
  variants: VariantResult[];
  timing: TimingResult;
  load: LoadResult | undefined;
  loadAverage: { start: number[]; end: number[] };
}

// ------------------------------------------------------------------------------------------

export async function runLives(): Promise<LivesResult> {
  const loadStart = loadAverage();
  // The receiver answers at once; on a loaded machine an attempt may still pass the fast lane's
  // 500 ms budget and mark its endpoint slow for WEBHOOK_SLOW_LANE_SECONDS (5 min), which would
  // send the next lives' deliveries through the slow lane: 1 s keeps such a machine artifact to
  // the one delivery it hit (counted in `laneEffects`).
  const stack: BenchStack = await startBenchStack({ proxies: true, pollers: 4, env: { WEBHOOK_SLOW_LANE_SECONDS: '1' } });
  const rx = await startReceiver();
  const direct = new DynamoDBClient({ endpoint: stack.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    return await new LifeBench(stack, rx, direct).run(loadStart);
  } finally {
    direct.destroy();
    await rx.close();
    await stack.stop();
  }
}

class LifeBench {
  private readonly ddb: DynamoProxy;
  private readonly sqs: SqsProxy;
  private bank!: Party;
  private provider!: Party;
  private bankPath = '';
  private providerPath = '';
  private seq = 0;
  private readonly table = process.env.TABLE_NAME!;

  constructor(
    private readonly s: BenchStack,
    private readonly rx: Receiver,
    private readonly direct: DynamoDBClient,
  ) {
    this.ddb = s.ddbProxy!;
    this.sqs = s.sqsProxy!;
  }

  async run(loadStart: number[]): Promise<LivesResult> {
    this.label('setup');
    this.bank = await this.s.participant('bank');
    this.provider = await this.s.participant('provider');
    this.bankPath = await this.endpoint(this.bank);
    this.providerPath = await this.endpoint(this.provider);

    // Timing pass first (it also loads every module the lives use).
    const timing = await this.timingPass();

    const variants: VariantResult[] = [];
    const only = process.env.BENCH_LIVES_VARIANTS?.split(',').filter(Boolean);
    for (const v of VARIANTS.filter((x) => !only || only.includes(x.id))) {
      console.error(`bench lives: ${v.id}`);
      variants.push(await this.variant(v));
    }
    console.error('bench lives: load phase');
    const load = LOAD_LIVES > 0 ? await this.loadPhase() : undefined;
    return {
      config: {
        livesPerVariant: LIVES_PER_VARIANT,
        bill: BILL,
        loadLives: LOAD_LIVES,
        loadConcurrency: LOAD_CONCURRENCY,
        loadMerchants: LOAD_MERCHANTS,
        pollers: 4,
        quick: QUICK,
      },
      variants,
      timing,
      load,
      loadAverage: { start: loadStart, end: loadAverage() },
    };
  }

  // ---------------------------------------------------------------------- helpers

  private label(l: string): void {
    this.ddb.label = l;
    this.sqs.label = l;
  }

  private async endpoint(p: Party): Promise<string> {
    const { url, path } = this.rx.endpointUrl(p.id);
    await this.s.must(201, 'POST', '/v1/webhooks/endpoints', p.apiKey, { url });
    return path;
  }

  private async merchant(): Promise<Merchant> {
    const m = await this.s.participant('merchant', { providerId: this.provider.id });
    await this.s.must(200, 'PATCH', '/v1/provider/merchant/trust', this.provider.apiKey, {
      entityId: m.id,
      trusted: true,
      trustLevel: 'enhanced',
    });
    return { ...m, endpointPath: await this.endpoint(m) };
  }

  /** `n` new customers of the bank, each with an approve_recurring decision for `m`. */
  private async customers(m: Merchant, n: number): Promise<Customer[]> {
    const records = Array.from({ length: n }, () => {
      const i = ++this.seq;
      return {
        clientRef: `CR-${this.s.run}-${i}`,
        firstname: 'Ada',
        middlename: 'Ngozi',
        lastname: `Obi${i}`,
        accountName: 'Ada Ngozi Obi',
        email: `ada${i}-${this.s.run}@bench.test`,
        country: 'NG',
        accountNumber: String(1_000_000_000 + i),
        reference: `REF-${this.s.run}-${i}`,
        address: `${i} Marina Road, Lagos`,
        phone: `+234 803 ${String(1_000_000 + i).slice(-7)}`,
      };
    });
    const ids: string[] = [];
    for (let i = 0; i < records.length; i += 50) {
      const batch = await this.s.must(201, 'POST', '/v1/bank/customers', this.bank.apiKey, { customers: records.slice(i, i + 50) });
      ids.push(...(batch.data.data.customerIds as string[]));
    }
    return mapLimit(ids, 4, async (customerId, i) => {
      const found = await this.s.must(200, 'GET', `/v1/customer/banks?email=${encodeURIComponent(records[i]!.email)}`, m.apiKey);
      const lookupPhrase = found.data.banks[0].lookupPhrase as string;
      const intent = await this.s.must(200, 'POST', '/v1/billing/intent', m.apiKey, {
        lookupPhrases: [lookupPhrase],
        currency: BILL.currency,
        description: 'Bench',
      });
      const d = await this.s.must(200, 'POST', '/v1/billing/intent-response', this.bank.apiKey, {
        customerId,
        entityId: m.id,
        lookupPhrase,
        intentId: intent[0].intentId,
        customerDecision: 'approve_recurring',
        spendingLimits: LIMITS,
      });
      return { customerId, decisionId: d.data.id as string, agreementPhrase: d.data.agreementPhrase as string };
    });
  }

  private idem = (key: boolean): Record<string, string> => (key ? { 'Idempotency-Key': randomUUID() } : {});

  private async bill(m: Merchant, c: Customer, key: boolean): Promise<string> {
    const r = await this.s.must<any[]>(
      201,
      'POST',
      '/v1/customer/bill',
      m.apiKey,
      { agreementPhrases: [c.agreementPhrase], ...BILL },
      this.idem(key),
    );
    if (r[0]?.statusCode !== 201) throw new Error(`bill: ${JSON.stringify(r).slice(0, 300)}`);
    return r[0].billingRequestId as string;
  }

  private async answer(billId: string, action: 'approve_recurring' | 'deny', key: boolean): Promise<void> {
    await this.s.must(
      200,
      'POST',
      '/v1/billing/bank-response',
      this.bank.apiKey,
      { billingRequestId: billId, action, ...(action === 'deny' ? {} : { bankTransactionId: `BTX-${randomUUID().slice(0, 12)}` }) },
      this.idem(key),
    );
  }

  /** Deliveries received so far on a path. */
  private received = (path: string) => this.rx.received(path).length;

  /** Wait until `path` has received `n` requests. */
  private async deliveries(path: string, n: number): Promise<void> {
    await this.rx.waitFor(path, (reqs) => reqs.length >= n, 120_000);
  }

  /** Everything the last step caused has run: queues empty, workers idle, no DynamoDB/SQS activity for a while. */
  private async quiet(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await this.s.app.settle(180_000);
      await this.ddb.waitIdle(400);
      await this.sqs.waitIdle(400);
      if (this.ddb.working === 0 && this.sqs.working === 0) return;
    }
  }

  /** Run one HTTP call as a measured request path: consumers held, its window tagged. */
  private async window<T>(label: string, name: string, fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> {
    this.label(label);
    this.ddb.window = name;
    this.ddb.holdConsumers();
    this.sqs.holdConsumers();
    const t0 = performance.now();
    const c0 = cpuMs();
    try {
      const value = await fn();
      return { value, ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
    } finally {
      this.ddb.window = undefined;
      this.label(`${label}:after`);
      this.ddb.releaseConsumers();
      this.sqs.releaseConsumers();
    }
  }

  /** When the merchant's pending settlement batch is due (its shards carry the due attributes). */
  private async settlementDueAt(merchantId: string): Promise<string> {
    const r = await this.direct.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `SETTLE#${merchantId}` } },
        ConsistentRead: true,
      }),
    );
    const due = (r.Items ?? []).map((it) => it.dueSk?.S).filter((x): x is string => !!x);
    if (!due.length) throw new Error(`no pending settlement batch for ${merchantId}`);
    return due.map((d) => d.split('#')[0]!).sort()[0]!;
  }

  /** The tick at the settlement's due time; waits for its deliveries (merchant + provider). */
  private async settle(label: string, merchants: Merchant[]): Promise<{ claimed: number }> {
    const at = (await Promise.all(merchants.map((m) => this.settlementDueAt(m.id)))).sort().pop()!;
    const before = merchants.map((m) => this.received(m.endpointPath));
    const providerBefore = this.received(this.providerPath);
    this.label(label);
    const r = await this.s.app.tick(new Date(at));
    await Promise.all(merchants.map((m, i) => this.deliveries(m.endpointPath, before[i]! + 1)));
    await this.deliveries(this.providerPath, providerBefore + merchants.length);
    await this.quiet();
    this.label('bench');
    return { claimed: r.claimed };
  }

  /** Age the decision's lastUsed by 2 h (uncounted: straight to DynamoDB Local). */
  private async ageLastUsed(decisionId: string): Promise<void> {
    const k = decisionKey(decisionId);
    await this.direct.send(
      new UpdateItemCommand({
        TableName: this.table,
        Key: { pk: { S: k.pk }, sk: { S: k.sk } },
        UpdateExpression: 'SET lastUsed = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': { S: new Date(Date.now() - 2 * ONE_HOUR_MS).toISOString() } },
      }),
    );
  }

  // ---------------------------------------------------------------------- one life

  private async life(v: { id: string; key: boolean; aged: boolean }, m: Merchant, c: Customer, i: number): Promise<LifeRun> {
    if (v.aged) await this.ageLastUsed(c.decisionId);
    const seen = {
      bank: this.received(this.bankPath),
      merchant: this.received(m.endpointPath),
      provider: this.received(this.providerPath),
    };
    const rxBefore = this.rx.requests.length;
    const b = await this.window(`${v.id}|bill`, `${v.id}|bill#${i}`, () => this.bill(m, c, v.key));
    let t0 = performance.now();
    let c0 = cpuMs();
    await this.deliveries(this.bankPath, seen.bank + 1);
    await this.quiet();
    const after1 = { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
    const a = await this.window(`${v.id}|approval`, `${v.id}|approval#${i}`, () => this.answer(b.value, 'approve_recurring', v.key));
    t0 = performance.now();
    c0 = cpuMs();
    await this.deliveries(m.endpointPath, seen.merchant + 1);
    await this.deliveries(this.providerPath, seen.provider + 1);
    await this.quiet();
    const after2 = { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
    this.label('bench');
    const got = this.rx.requests.slice(rxBefore);
    const deliveryBytes = got.reduce(
      (s, r) => s + Buffer.byteLength(r.body) + Object.entries(r.headers).reduce((h, [k, x]) => h + k.length + x.length + 4, 0),
      0,
    );
    const types = got.map((r) => {
      try {
        return String(JSON.parse(r.body).type);
      } catch {
        return 'unparsed';
      }
    });
    return {
      billMs: b.ms,
      approvalMs: a.ms,
      billCpuMs: b.cpuMs,
      approvalCpuMs: a.cpuMs,
      asyncMs: after1.ms + after2.ms,
      asyncCpuMs: after1.cpuMs + after2.cpuMs,
      deliveryBytes,
      types,
    };
  }

  // ---------------------------------------------------------------------- variants

  private async variant(v: Variant): Promise<VariantResult> {
    this.label('setup');
    this.ddb.accounting = false;
    // 10 lives on one merchant (10 bills per merchant-day), or each on its own (1 per merchant-day).
    const perDay = v.perDay ?? LIVES_PER_VARIANT;
    const pairs: { m: Merchant; c: Customer }[] = [];
    for (let k = 0; k < LIVES_PER_VARIANT / perDay; k++) {
      const m = await this.merchant();
      for (const c of await this.customers(m, perDay)) pairs.push({ m, c });
    }
    const merchants = [...new Set(pairs.map((p) => p.m))];
    if (!v.first) {
      // The decision's previous bill (declined by the bank: nothing to settle); it also
      // leaves the customer in the warm process's cache, as a repeat bill finds it.
      for (const { m, c } of pairs) await this.answer(await this.bill(m, c, v.key), 'deny', v.key);
    }
    await this.quiet();
    this.ddb.clear();
    this.sqs.clear();
    this.ddb.accounting = true;
    const lives: LifeRun[] = [];
    for (let i = 0; i < pairs.length; i++) lives.push(await this.life(v, pairs[i]!.m, pairs[i]!.c, i));
    const settlement = await this.settle(`${v.id}|settlement`, merchants);
    this.ddb.accounting = false;
    for (const m of merchants) await this.checkSettled(m, perDay);
    return this.summarizeVariant(v, lives, settlement.claimed);
  }

  private async checkSettled(m: Merchant, expected: number): Promise<void> {
    const r = await this.s.must(200, 'GET', '/v1/settlements', m.apiKey);
    const list = r.data.settlements as { transactionCount: number; status: string }[];
    const count = list.reduce((a, x) => a + x.transactionCount, 0);
    if (count !== expected) throw new Error(`settlement of ${m.id}: ${count} transactions, expected ${expected}`);
  }

  private summarizeVariant(v: Variant, lives: LifeRun[], claimed: number): VariantResult {
    const n = lives.length;
    const writes = this.ddb.writes.filter((w) => w.label.startsWith(`${v.id}|`));
    const stepOf = (label: string) => label.slice(v.id.length + 1) as Step;
    const byStep = Object.fromEntries(STEPS.map((s) => [s, emptyUnits()])) as Record<Step, Units>;
    const kinds = new Map<string, VariantResult['byKind'][number]>();
    for (const w of writes) {
      const step = stepOf(w.label);
      if (!byStep[step]) continue;
      addUnits(byStep[step], w);
      const key = `${step}|${kindOf(w.pk)}|${w.action}${w.transactional ? ' (txn)' : ''}${w.conditionFailed ? ' failed' : ''}`;
      const k = kinds.get(key) ?? {
        kind: kindOf(w.pk),
        step,
        action: `${w.action}${w.transactional ? ' (txn)' : ''}${w.conditionFailed ? ' failed' : ''}`,
        items: 0,
        units: 0,
        table: 0,
        indexes: {},
        bytes: 0,
        changed: [],
        created: 0,
      };
      if (w.created) k.created++;
      k.changed = [...new Set([...k.changed, ...w.changed])].sort();
      k.items++;
      k.units += w.charge.total;
      k.table += w.charge.table;
      k.bytes += w.charge.bytesAfter ?? w.charge.bytesBefore ?? 0;
      for (const [ix, u] of Object.entries(w.charge.indexes)) bump(k.indexes, ix, u);
      kinds.set(key, k);
    }
    const settlementUnits = byStep.settlement.total;
    const perLifeSteps = Object.fromEntries(STEPS.map((s) => [s, perLife(byStep[s], n)])) as Record<Step, Units>;
    const wru = round(STEPS.reduce((a, s) => a + byStep[s].total, 0) / n);

    const reqs = this.ddb.requests.filter((r) => r.label.startsWith(`${v.id}|`));
    const requests: Record<string, Record<string, number>> = {};
    for (const r of reqs) bump((requests[stepOf(r.label)] ??= {}), r.op, 1 / n);
    for (const s of Object.values(requests)) for (const k of Object.keys(s)) s[k] = round(s[k]!);
    const path = (step: 'bill' | 'approval') => {
      const per: RequestRecord[][] = Array.from({ length: n }, (_, i) => reqs.filter((r) => r.window === `${v.id}|${step}#${i}`));
      const counts = per.map((p) => p.length);
      const med = median(counts);
      const typical = per.find((p) => p.length === med) ?? per[0] ?? [];
      const opsOf = (p: RequestRecord[]) => p.map((r) => (r.ok ? r.op : `${r.op} (${r.error})`));
      return {
        mean: round(counts.reduce((a, b) => a + b, 0) / n),
        min: Math.min(...counts),
        max: Math.max(...counts),
        ops: opsOf(typical),
        perLife: counts,
        // The lives whose path is not the typical one's length: what the extra requests were.
        unusual: per.flatMap((p, life) => (p.length === med ? [] : [{ life, ops: opsOf(p) }])),
      };
    };
    const billPath = path('bill');
    const approval = path('approval');
    const sqsCounts = Object.entries(this.sqs.byLabel)
      .filter(([l]) => l.startsWith(`${v.id}|`))
      .map(([, c]) => c);
    const sqsByOp: Record<string, number> = {};
    let sent = 0;
    let received = 0;
    for (const c of sqsCounts) {
      for (const [op, x] of Object.entries(c.byOp)) if (op !== 'GetQueueAttributes') bump(sqsByOp, op, x);
      sent += c.messagesSent;
      received += c.byOp.ReceiveMessage ?? 0;
    }
    const types: Record<string, number> = {};
    for (const l of lives) for (const t of l.types) bump(types, t, 1 / n);
    const endpointWrites = writes.filter((w) => kindOf(w.pk) === 'WHEP');
    const slowLaneMessages = sqsCounts.reduce(
      (a, c) => a + Object.entries(c.sentTo).reduce((x, [q, k]) => x + (q.endsWith('webhooks-slow') ? k : 0), 0),
      0,
    );
    return {
      id: v.id,
      label: v.label,
      info: !!v.info,
      perDay: v.perDay ?? LIVES_PER_VARIANT,
      lives: n,
      wru,
      byStep: perLifeSteps,
      byKind: [...kinds.values()]
        .map((k) => ({
          ...k,
          items: round(k.items / n),
          created: round(k.created / n),
          units: round(k.units / n),
          table: round(k.table / n),
          indexes: Object.fromEntries(Object.entries(k.indexes).map(([x, u]) => [x, round(u / n)])),
          bytes: Math.round(k.bytes / Math.max(1, k.items)),
        }))
        .sort((a, b) => STEPS.indexOf(a.step as Step) - STEPS.indexOf(b.step as Step) || b.units - a.units),
      rru: round(reqs.reduce((a, r) => a + r.readUnits, 0) / n),
      requests,
      requestsPerLife: round(reqs.length / n),
      billPath,
      approvalPath: { mean: approval.mean, min: approval.min, max: approval.max, ops: approval.ops, unusual: approval.unusual },
      settlement: {
        writeUnits: settlementUnits,
        bills: n,
        perBill: round(settlementUnits / n),
        claimed,
        kinds: Object.fromEntries(
          [...kinds.values()].filter((k) => k.step === 'settlement').map((k) => [`${k.kind} ${k.action}`, k.items]),
        ),
      },
      cancelledTransactions: this.ddb.cancelled.filter((c) => c.label.startsWith(`${v.id}|`)).length,
      failedConditions: writes.filter((w) => w.conditionFailed).length,
      laneEffects: {
        endpointWrites: endpointWrites.length,
        endpointUnits: endpointWrites.reduce((a, w) => a + w.charge.total, 0),
        slowLaneMessages,
      },
      sqs: {
        requestsPerLife: round(Object.values(sqsByOp).reduce((a, b) => a + b, 0) / n),
        byOp: Object.fromEntries(Object.entries(sqsByOp).map(([k, x]) => [k, round(x / n)])),
        messagesSent: round(sent / n),
        lambdaBatches: round(received / n),
      },
      streams: {
        byOp: Object.fromEntries(Object.entries(this.ddb.streams).map(([k, x]) => [k, round(x / n)])),
        recordsPerLife: round(this.ddb.streamRecords / n),
        batchesPerLife: round(this.ddb.streamBatches / n),
      },
      deliveries: {
        perLife: round(lives.reduce((a, l) => a + l.types.length, 0) / n),
        bytesPerLife: Math.round(lives.reduce((a, l) => a + l.deliveryBytes, 0) / n),
        types: Object.fromEntries(Object.entries(types).map(([k, x]) => [k, round(x)])),
      },
      latencyMs: { bill: round(median(lives.map((l) => l.billMs)), 1), approval: round(median(lives.map((l) => l.approvalMs)), 1) },
    };
  }

  // ---------------------------------------------------------------------- timing pass

  /** Lives with the proxies forwarding only: durations, worker invocations, log bytes. */
  private async timingPass(): Promise<TimingResult> {
    this.ddb.accounting = false;
    const m = await this.merchant();
    const cs = await this.customers(m, LIVES_PER_VARIANT);
    await this.quiet();
    this.sqs.clear();
    this.ddb.clear();
    this.sqs.trackInvocations = true;
    // Log bytes as CloudWatch would ingest them: every line at LOG_LEVEL=INFO, EMF metric lines included.
    const saved = { log: console.log, error: console.error, level: process.env.LOG_LEVEL };
    let logBytes = 0;
    let logLines = 0;
    const count = (...args: unknown[]) => {
      logBytes += Buffer.byteLength(args.map(String).join(' ')) + 1;
      logLines++;
    };
    const stopMetrics = onMetricsLine((line) => (logBytes += Buffer.byteLength(line) + 1));
    // What the idle process burns (pollers' long polls, timers): subtracted from the async windows.
    const idleT0 = performance.now();
    const idleC0 = cpuMs();
    await new Promise((r) => setTimeout(r, 2000));
    const idleCpuPerMs = (cpuMs() - idleC0) / (performance.now() - idleT0);
    const lives: LifeRun[] = [];
    try {
      console.log = count;
      console.error = count;
      process.env.LOG_LEVEL = 'INFO';
      for (let i = 0; i < cs.length; i++) lives.push(await this.life({ id: 'timing', key: true, aged: false }, m, cs[i]!, i));
    } finally {
      console.log = saved.log;
      console.error = saved.error;
      process.env.LOG_LEVEL = saved.level;
      stopMetrics();
    }
    const counts = Object.values(this.sqs.byLabel);
    const batches = counts.reduce((a, c) => a + (c.byOp.ReceiveMessage ?? 0), 0);
    const workerMs = this.sqs.invocations.map((x) => x.ms);
    const streamBatches = this.ddb.streamBatches;
    this.sqs.trackInvocations = false;
    await this.settle('timing|settlement', [m]);
    const n = lives.length;
    return {
      lives: n,
      billMs: summarize(lives.map((l) => l.billMs)),
      approvalMs: summarize(lives.map((l) => l.approvalMs)),
      billCpuMs: summarize(lives.map((l) => l.billCpuMs)),
      approvalCpuMs: summarize(lives.map((l) => l.approvalCpuMs)),
      workersCpuMsPerLife: round(median(lives.map((l) => Math.max(0, l.asyncCpuMs - idleCpuPerMs * l.asyncMs))), 1),
      idleCpuMsPerSecond: round(idleCpuPerMs * 1000, 1),
      workerMs: summarize(workerMs),
      workerInvocationsPerLife: round((batches + streamBatches) / n),
      logBytesPerLife: Math.round(logBytes / n),
      logLinesPerLife: round(logLines / n, 1),
      invocationsPerLife: round(2 + (batches + streamBatches) / n),
    };
  }

  // ---------------------------------------------------------------------- load phase

  private async loadPhase(): Promise<LoadResult> {
    this.label('setup');
    this.ddb.accounting = false;
    const merchants: Merchant[] = [];
    for (let i = 0; i < LOAD_MERCHANTS; i++) merchants.push(await this.merchant());
    const per = Math.ceil(LOAD_LIVES / LOAD_MERCHANTS);
    const lives: { m: Merchant; c: Customer }[] = [];
    for (const m of merchants) for (const c of await this.customers(m, per)) lives.push({ m, c });
    await this.quiet();
    const rxBefore = {
      bank: this.received(this.bankPath),
      provider: this.received(this.providerPath),
      merchants: merchants.map((m) => this.received(m.endpointPath)),
    };
    this.ddb.clear();
    this.sqs.clear();
    this.ddb.accounting = true;
    this.label('load');
    const t0 = performance.now();
    // Interleave the merchants, as concurrent traffic would.
    const order = lives.map((l, i) => ({ l, k: (i % per) * LOAD_MERCHANTS + Math.floor(i / per) })).sort((a, b) => a.k - b.k);
    await mapLimit(order, LOAD_CONCURRENCY, async ({ l }) => {
      const id = await this.bill(l.m, l.c, true);
      await this.answer(id, 'approve_recurring', true);
    });
    await this.deliveries(this.bankPath, rxBefore.bank + lives.length);
    await this.deliveries(this.providerPath, rxBefore.provider + lives.length);
    await Promise.all(merchants.map((m, i) => this.deliveries(m.endpointPath, rxBefore.merchants[i]! + per)));
    await this.quiet();
    const seconds = (performance.now() - t0) / 1000;
    await this.settle('load|settlement', merchants);
    this.ddb.accounting = false;

    const writes = this.ddb.writes.filter((w) => w.label === 'load' || w.label === 'load:after' || w.label === 'load|settlement');
    const bills = lives.length;
    const owners = {
      bank: new Set([this.bank.id, sha256Hex(this.bank.apiKey)]),
      provider: new Set([this.provider.id, sha256Hex(this.provider.apiKey)]),
      merchant: new Set(merchants.flatMap((m) => [m.id, sha256Hex(m.apiKey)])),
    };
    const shares = { bank: 0.4, provider: 0.3, merchant: 0.1, system: 1 };
    const ownerOf = (key: string): { owner: PartitionHeat['owner']; shape: string } => {
      let shape = key;
      let owner: PartitionHeat['owner'] | undefined;
      for (const [o, ids] of Object.entries(owners) as [keyof typeof owners, Set<string>][])
        for (const id of ids)
          if (shape.includes(id)) {
            shape = shape.split(id).join(`<${o}>`);
            owner ??= o;
          }
      if (!owner) owner = /^DUE#\d+$/.test(key) ? 'system' : 'item';
      shape = shape
        .replace(/[A-Za-z0-9_-]{16,}/g, '<id>')
        .replace(/\b\d{4}-\d{2}-\d{2}\b/g, '<day>')
        .replace(/^DUE#\d+$/, 'DUE#<shard>');
      return { owner, shape };
    };
    /** Units per key, scaled to PEAK_BILLS_PER_SECOND with the owner's share; one row per key shape (its hottest key). */
    const heat = (parts: { index: string; key: string; units: number }[]) => {
      const byKey = new Map<string, { index: string; key: string; units: number }>();
      for (const p of parts) {
        const id = `${p.index}|${p.key}`;
        const e = byKey.get(id) ?? { index: p.index, key: p.key, units: 0 };
        e.units += p.units;
        byKey.set(id, e);
      }
      const heats: PartitionHeat[] = [...byKey.values()].map((e) => {
        const { owner, shape } = ownerOf(e.key);
        const ownerBills = owner === 'merchant' ? per : owner === 'item' ? 1 : bills;
        const perOwnerBill = e.units / ownerBills;
        return {
          index: e.index,
          key: e.key,
          shape,
          owner,
          units: round(e.units, 1),
          perOwnerBill: round(perOwnerBill, 3),
          atPeak: owner === 'item' ? 0 : round(perOwnerBill * PEAK_BILLS_PER_SECOND * shares[owner], 1),
          atPeakAllBills: owner === 'item' ? 0 : round(perOwnerBill * PEAK_BILLS_PER_SECOND, 1),
        };
      });
      heats.sort((a, b) => b.atPeak - a.atPeak || b.units - a.units);
      // One row per key shape (the hottest of its keys: one bank, four merchants, eight due shards ...).
      const seenShape = new Set<string>();
      const distinct = heats.filter((h) => {
        const id = `${h.index}|${h.shape}`;
        if (seenShape.has(id)) return false;
        seenShape.add(id);
        return true;
      });
      return { heats, distinct: distinct.filter((h) => h.owner !== 'item').slice(0, 20) };
    };
    const w = heat(writes.flatMap((x) => x.charge.byPartition));
    const reads = this.ddb.requests.filter((r) => r.label === 'load' || r.label === 'load:after' || r.label === 'load|settlement');
    const r = heat(reads.flatMap((x) => x.reads ?? []));
    const total = writes.reduce((a, w) => a + w.charge.total, 0);
    return {
      lives: bills,
      concurrency: LOAD_CONCURRENCY,
      seconds: round(seconds, 1),
      billsPerSecond: round(bills / seconds, 1),
      wruPerLife: round(total / bills),
      cancelledTransactions: this.ddb.cancelled.filter((c) => c.label.startsWith('load')).length,
      shares,
      peakBillsPerSecond: PEAK_BILLS_PER_SECOND,
      hottest: w.distinct,
      hottestReads: r.distinct,
      hottestListKey: w.heats.find((h) => h.owner === 'bank' || h.owner === 'provider'),
    };
  }
}
