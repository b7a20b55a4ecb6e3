/**
 * The DESIGN 9.6 part of the bench's report, from one run's results (phases `lives` and
 * `bundles`, and the cost model of bench/lib/cost.ts): target rows, the markdown sections of
 * bench/results.md, and the generated blocks of docs/cost.md (between
 * `<!-- bench:<name> -->` and `<!-- /bench:<name> -->`; the prose around them is kept).
 */
import { round } from './stats';
import { PRICES } from './cost';

export interface Target {
  id: string;
  target: string;
  value: string;
  met: boolean | null;
  note: string;
}

const cell = (s: unknown) => String(s ?? '—').replace(/\|/g, '\\|');
export const table = (head: string[], rows: unknown[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
export const metCell = (met: boolean | null) => (met === null ? 'not measured' : met ? '**met**' : '**NOT met**');

/** DESIGN 10.2: write units per life without Idempotency-Key, with it on both POSTs, at 1 bill per merchant-day. */
const WRU_TARGET = { plain: 22, key: 25, onePerDay: 40 };
const REQUESTS_TARGET = 3;
/** DESIGN 10.2: USD per million bills in the honest model, on-demand and on provisioned capacity. */
const USD_TARGET = 30;
const USD_PROVISIONED_TARGET = 21;
/** DESIGN 10.6: per partition key at 5,000 bills/s. */
const PARTITION_TARGET = { wcu: 1000, rcu: 3000 };
export const BUNDLE_LIMIT_KB = 400;

const stepsOf = (v: any) =>
  `bill ${v.byStep.bill.total} + its delivery ${v.byStep['bill:after'].total} + approval ${v.byStep.approval.total} + its 2 deliveries ${v.byStep['approval:after'].total} + settlement share ${v.byStep.settlement.total}`;

/** The largest item kinds of a variant's life (kind: WRU). */
const topKinds = (v: any, n = 4) => {
  const by: Record<string, number> = {};
  for (const k of v.byKind as any[]) by[k.kind] = (by[k.kind] ?? 0) + k.units;
  return Object.entries(by)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, u]) => `${k} ${round(u, 1)}`)
    .join(', ');
};

const owners: Record<string, string> = {
  bank: "largest bank's",
  provider: "largest provider's",
  merchant: "largest merchant's",
  system: 'all',
};

/** DESIGN 9.6 target rows. */
export function scaleTargets(res: any): Target[] {
  const t: Target[] = [];
  const lv = res.lives;
  if (lv) {
    const vs = (lv.variants as any[]).filter((v) => !v.info);
    for (const v of vs) {
      const one = v.perDay === 1;
      const max = one ? WRU_TARGET.onePerDay : v.id.includes('+key') ? WRU_TARGET.key : WRU_TARGET.plain;
      t.push({
        id: `wru-${v.id}`,
        target: `≤ ${max} write units per bill life (1-phrase bill + approval + 3 deliveries + settlement share at ${v.perDay ?? 10} bill${(v.perDay ?? 10) === 1 ? '' : 's'} per merchant-day), counted item by item — ${v.label}`,
        value: `${v.wru} WRU (${stepsOf(v)})`,
        met: v.wru <= max,
        note: `largest: ${topKinds(v)}`,
      });
    }
    for (const v of vs.filter((x) => x.perDay !== 1))
      t.push({
        id: `requests-${v.id}`,
        target: `≤ ${REQUESTS_TARGET} DynamoDB requests on the request path of a 1-phrase bill, auth included — ${v.label}`,
        value: `${v.billPath.mean} per bill (${v.billPath.min}–${v.billPath.max} over ${v.lives}): ${v.billPath.ops.join(' → ')}`,
        met: v.billPath.max <= REQUESTS_TARGET,
        note: 'counted while the HTTP call is in flight, every consumer held back (bench/lib/proxies.ts), retries included',
      });
    const bills = res.costModel?.bills as any[] | undefined;
    if (bills?.length) {
      // The targets' scope: 10 bills per merchant-day (the @1 variants are reported in the cost table).
      const targeted = bills.filter((b) => !b.info && !String(b.id).endsWith('@1'));
      const worst = Math.max(...targeted.map((b) => b.usd));
      const worstProvisioned = Math.max(...targeted.map((b) => b.provisionedUsd));
      t.push({
        id: 'usd-per-million-bills',
        target: `≤ USD ${USD_TARGET} per million bills on-demand, ≤ ${USD_PROVISIONED_TARGET} with DynamoDB on provisioned capacity (honest model: X-Ray, 150 ms receivers, ~600 B platform log lines; same scope as the write units, 10 bills per merchant-day)`,
        value: `${targeted.map((b) => `${b.id} ${b.usd}`).join(', ')}; provisioned ${targeted.map((b) => b.provisionedUsd).join(', ')}`,
        met: worst <= USD_TARGET && worstProvisioned <= USD_PROVISIONED_TARGET,
        note: `DynamoDB ${round((100 * targeted.reduce((a, b) => a + dynamoShare(b), 0)) / targeted.length, 0)} % of it`,
      });
    }
    const ld = lv.load;
    if (ld?.hottest?.length && ld.peakBillsPerSecond) {
      const hw = ld.hottest[0];
      const hr = ld.hottestReads?.[0];
      const peak = ld.peakBillsPerSecond.toLocaleString('en-US');
      t.push({
        id: 'partition-key-heat',
        target: `no partition key over ${PARTITION_TARGET.wcu.toLocaleString('en-US')} WCU/s or ${PARTITION_TARGET.rcu.toLocaleString('en-US')} RCU/s at ${peak} bills/s (DESIGN 10.6; owners' shares as in docs/cost.md)`,
        value: `writes: ${hw.shape} (${hw.index}) ${hw.atPeak} WCU/s; reads: ${hr ? `${hr.shape} (${hr.index}) ${hr.atPeak} RCU/s` : 'not measured'}`,
        met: hw.atPeak <= PARTITION_TARGET.wcu && (!hr || hr.atPeak <= PARTITION_TARGET.rcu),
        note: `per-key units from the load phase (${ld.lives} lives at concurrency ${ld.concurrency}), per bill of the key's owner, scaled`,
      });
    }
  }
  const b = res.bundles;
  if (b) {
    const over = b.overBundleLimit as { handler: string; kb: number }[];
    t.push({
      id: 'bundle-size',
      target: `every function bundle ≤ ${BUNDLE_LIMIT_KB} KB (minified .mjs, KB = 1024 B)`,
      value: `${over.length} of ${b.functions} over; max ${round(b.sizeBytes.max / 1024, 1)} KB, median ${round(b.sizeBytes.median / 1024, 1)} KB`,
      met: over.length === 0,
      note: over.length
        ? `over: ${[...over]
            .sort((x, y) => y.kb - x.kb)
            .map((o) => `${o.handler} ${o.kb} KB`)
            .join(', ')}`
        : `largest: ${b.largest[0].handler} ${b.largest[0].kb} KB`,
    });
  }
  return t;
}

const dynamoShare = (b: any) =>
  (b.lines as any[]).filter((l) => /DynamoDB/.test(l.item)).reduce((a, l) => a + l.usdPerMillion, 0) / Math.max(0.01, b.usd);

// ------------------------------------------------------------------------------------------
// Markdown

const STEP_NAMES: Record<string, string> = {
  bill: 'bill request',
  'bill:after': "bill's delivery",
  approval: 'approval request',
  'approval:after': "approval's deliveries",
  settlement: 'settlement share',
};

/** bench/results.md: the bill lives, item by item. */
export function livesMarkdown(res: any, opts: { partitions?: boolean } = {}): string[] {
  const lv = res.lives;
  if (!lv) return [];
  const L: string[] = [];
  const vs = lv.variants as any[];
  L.push('');
  L.push(`## Bill lives, item by item (bench/lives.ts, ${lv.config.livesPerVariant} lives per variant, one at a time)`);
  L.push('');
  L.push(
    `One life = \`POST /v1/customer/bill\` with 1 phrase (${lv.config.bill.amount} ${lv.config.bill.currency}, "${lv.config.bill.description}") + the bank's \`POST /v1/billing/bank-response\` (approve_recurring) + the 3 deliveries they cause (answered 200 at once) + a tenth of the tick that settles the variant's merchant-day of 10 bills. Every DynamoDB request goes through the bench's proxy, which charges each item written from its images before and after (bench/lib/write-units.ts: item size, 1 KB units, the larger image, transactions x 2 on the base table, each GSI copy sized on its projection, a ConditionCheck 2 write units); DynamoDB Local's ConsumedCapacity is not used.`,
  );
  L.push('');
  L.push(
    table(
      [
        'variant',
        ...Object.values(STEP_NAMES),
        '**WRU per life**',
        'RRU',
        'DynamoDB requests per life',
        'bill request path',
        'approval path',
        'SQS requests',
        'deliveries',
      ],
      vs.map((v) => [
        `${v.id}${v.info ? ' (info)' : ''}`,
        ...Object.keys(STEP_NAMES).map((s) => v.byStep[s].total),
        `**${v.wru}**`,
        v.rru,
        v.requestsPerLife,
        `${v.billPath.mean} (${v.billPath.min}–${v.billPath.max})`,
        `${v.approvalPath.mean} (${v.approvalPath.min}–${v.approvalPath.max})`,
        v.sqs.requestsPerLife,
        `${v.deliveries.perLife} (${Object.entries(v.deliveries.types)
          .map(([k, x]) => `${k} ${x}`)
          .join(', ')})`,
      ]),
    ),
  );
  L.push('');
  for (const v of vs) L.push(`- **${v.id}**: ${v.label}.`);
  L.push('');
  L.push('Request paths (a typical life; every request counted, auth included):');
  L.push('');
  for (const v of vs) L.push(`- ${v.id}: bill ${v.billPath.ops.join(' → ')}; approval ${v.approvalPath.ops.join(' → ')}`);
  const unusual = vs.flatMap((v) =>
    (['bill', 'approval'] as const).flatMap((step) =>
      ((step === 'bill' ? v.billPath : v.approvalPath).unusual ?? []).map(
        (u: { life: number; ops: string[] }) => `- ${v.id}, life ${u.life + 1}, ${step}: ${u.ops.join(' → ')}`,
      ),
    ),
  );
  if (unusual.length) {
    L.push('');
    L.push('Lives whose path was not the typical length (every request it made):');
    L.push('');
    L.push(...unusual);
  }
  const odd = vs.filter(
    (v) => v.cancelledTransactions || v.failedConditions || v.laneEffects?.endpointWrites || v.laneEffects?.slowLaneMessages,
  );
  if (odd.length) {
    L.push('');
    L.push(
      `Cancelled transactions (not charged here: AWS does not document what a cancelled transaction costs) and failed conditional writes (charged: the existing item's units) over the ${lv.config.livesPerVariant} lives: ${odd
        .map(
          (v) =>
            `${v.id} ${v.cancelledTransactions} cancelled, ${v.failedConditions} failed${v.laneEffects?.endpointWrites || v.laneEffects?.slowLaneMessages ? `, ${v.laneEffects.endpointWrites} endpoint writes (${v.laneEffects.endpointUnits} WRU) and ${v.laneEffects.slowLaneMessages} slow-lane hand-offs (a delivery past the fast lane's 500 ms budget on this loaded machine)` : ''}`,
        )
        .join('; ')}.`,
    );
  }
  const ref = vs.find((v) => v.id === 'repeat+key') ?? vs[0];
  if (ref) {
    L.push('');
    L.push(`### Where the write units of a life go (${ref.id}), per life`);
    L.push('');
    L.push(
      table(
        ['step', 'item (pk prefix)', 'write', 'items', 'WRU', 'base table', 'GSI copies', 'mean size B (after)', 'attributes changed'],
        (ref.byKind as any[]).map((k) => [
          STEP_NAMES[k.step] ?? k.step,
          k.kind,
          k.action,
          k.items,
          k.units,
          k.table,
          Object.entries(k.indexes)
            .map(([i, u]) => `${i} ${u}`)
            .join(', ') || '—',
          k.bytes,
          k.created >= k.items && k.items > 0
            ? 'new item'
            : k.changed.length > 8
              ? `${k.changed.length} attributes${k.created ? ` (${k.created} new)` : ''}`
              : `${k.changed.join(', ') || '— (unchanged)'}${k.created ? ` (${k.created} new)` : ''}`,
        ]),
      ),
    );
  }
  const ld = lv.load;
  if (ld?.peakBillsPerSecond && opts.partitions !== false) {
    L.push('');
    L.push(
      `### Hottest partition keys at ${ld.peakBillsPerSecond.toLocaleString('en-US')} bills/s (load phase: ${ld.lives} lives at concurrency ${ld.concurrency}, ${ld.billsPerSecond} bills/s locally, ${ld.wruPerLife} WRU per life with settlement)`,
    );
    L.push('');
    L.push(heatIntro(ld));
    L.push('');
    L.push(heatTable(ld, 'write', 20));
    L.push('');
    L.push(heatTable(ld, 'read', 20));
  }
  const tm = lv.timing;
  if (tm) {
    L.push('');
    L.push(
      `Timing pass (${tm.lives} lives, the proxies only forwarding; for the cost model's Lambda lines): wall clock bill p50 ${tm.billMs.p50} ms, approval p50 ${tm.approvalMs.p50} ms, worker batch (receive → delete) p50 ${tm.workerMs.p50} ms over ${tm.workerMs.count} batches (local, loaded machine); CPU time bill p50 ${tm.billCpuMs.p50} ms, approval p50 ${tm.approvalCpuMs.p50} ms, deliveries ${tm.workersCpuMsPerLife} ms per life (above an idle ${tm.idleCpuMsPerSecond} ms/s); ${tm.invocationsPerLife} Lambda invocations and ${tm.logBytesPerLife} B of log lines per life (${tm.logLinesPerLife ?? '?'} logger lines, each ${PRICES.lambdaLogContextBytes} B longer on Lambda: its context).`,
    );
  }
  return L;
}

/** bench/results.md: the cost model. */
export function costMarkdown(res: any): string[] {
  const c = res.costModel;
  if (!c) return [];
  const L: string[] = [];
  L.push('');
  L.push(`## Cost model (AWS ${c.prices.region} list prices, ${c.pricesAsOf}; details and assumptions in docs/cost.md)`);
  if (c.bills?.length) {
    L.push('');
    L.push(costTable(c));
    const head = c.bills.find((b: any) => b.id === c.headline?.id) ?? c.bills[0];
    L.push('');
    L.push(`Per bill life, ${head.id} (${head.label}):`);
    L.push('');
    L.push(linesTable(head.lines));
  }
  if (c.webhooks) {
    L.push('');
    L.push(
      `**${c.webhooks.usd} USD per million webhooks** (phase webhookCost: first-attempt delivery; ${c.webhooks.retryFactor.perMillionWebhooksAt30PercentFailures} USD with a receiver failing 30 %; ${c.webhooks.note}).`,
    );
    L.push('');
    L.push(
      table(
        ['per webhook', 'quantity', 'USD per million webhooks'],
        c.webhooks.lines.map((l: any) => [l.item, l.quantity, l.usdPerMillion]),
      ),
    );
  }
  return L;
}

const costTable = (c: any) =>
  table(
    ['variant', 'USD per million bills, on-demand', 'with DynamoDB on provisioned capacity', 'DynamoDB share'],
    (c.bills as any[]).map((b) => [
      `${b.id}${b.info ? ' (info)' : ''}`,
      `**${b.usd}**`,
      b.provisionedUsd,
      `${round(dynamoShare(b) * 100, 0)} %`,
    ]),
  );

const linesTable = (lines: any[]) =>
  table(
    ['item', 'quantity', 'USD per million bills'],
    [
      ...lines.map((l) => [l.item, l.quantity, l.usdPerMillion]),
      [
        '**total**',
        '',
        `**${round(
          lines.reduce((a, l) => a + l.usdPerMillion, 0),
          2,
        )}**`,
      ],
    ],
  );

// ------------------------------------------------------------------------------------------
// docs/cost.md

/** The generated blocks of docs/cost.md, by name. */
export function costDocBlocks(res: any): Record<string, string> {
  const blocks: Record<string, string> = {};
  const run = `Generated by \`npm run bench\` from the run of ${res.recordedAt} (${res.quick ? 'BENCH_QUICK=1, ' : ''}${res.machine.cpus} CPUs, load average ${res.loadAverage.start.join(' / ')} at its start); figures in bench/results.md and bench/results.json.`;
  const targets = (res.targets as Target[]).filter((t) =>
    ['wru-', 'requests-', 'usd-', 'partition-key', 'bundle-'].some((p) => t.id.startsWith(p)),
  );
  blocks.targets = [
    run,
    '',
    table(
      ['target (DESIGN 9.6, 10.2, 10.6)', 'measured', 'met'],
      targets.map((t) => [t.target, `**${t.value}**`, metCell(t.met)]),
    ),
  ].join('\n');
  const lv = res.lives;
  // The section heading is the document's own.
  if (lv)
    blocks.lives = livesMarkdown(res, { partitions: false })
      .filter((l) => !l.startsWith('## '))
      .join('\n')
      .trim();
  const c = res.costModel;
  if (c?.bills?.length) {
    const head = c.bills.find((b: any) => b.id === c.headline?.id) ?? c.bills[0];
    blocks.cost = [
      costTable(c),
      '',
      `Per bill life, the most expensive targeted variant (${head.id}: ${head.label}):`,
      '',
      linesTable(head.lines),
    ].join('\n');
  }
  if (c?.webhooks)
    blocks.webhooks = [
      `**${c.webhooks.usd} USD per million webhooks** (first-attempt delivery; ${c.webhooks.retryFactor.perMillionWebhooksAt30PercentFailures} USD with a receiver failing 30 %; ${c.webhooks.provisioned} with DynamoDB on provisioned capacity). ${c.webhooks.note}.`,
      '',
      table(
        ['item', 'quantity', 'USD per million webhooks'],
        c.webhooks.lines.map((l: any) => [l.item, l.quantity, l.usdPerMillion]),
      ),
    ].join('\n');
  const ld = lv?.load;
  if (lv) {
    const worst = Math.max(...(lv.variants as any[]).filter((v) => !v.info && v.perDay !== 1).map((v) => v.wru));
    const at = (rate: number) => Math.round(worst * rate).toLocaleString('en-US');
    const peak = lv.load?.peakBillsPerSecond ?? 5000;
    blocks.quota = `| DynamoDB table throughput (on-demand: 40,000 WRU/s and 40,000 RRU/s per table by default, 80,000 per account; instant scaling to 2x the previous peak) | ${worst} WRU per bill life, item by item (the most expensive targeted variant) | ${at(5)} WRU/s | ${at(50)} | **${at(500)} WRU/s: ${Math.round((worst * 500 * 100) / 40_000)} % of the default table quota** | at ${peak.toLocaleString('en-US')} bills/s ${at(peak)} WRU/s, ${Math.round((worst * peak * 100) / 40_000)} % of it: raise the table and account write quotas (Service Quotas: "Table-level write throughput limit", "Account-level write throughput limit") to ~2x the peak and pre-warm (warm throughput) before a known peak |`;
  }
  if (ld?.peakBillsPerSecond) blocks.partitions = [heatIntro(ld), '', heatTable(ld, 'write', 10), '', heatTable(ld, 'read', 10)].join('\n');
  const e = res.endpoints;
  const tk = res.tick;
  const wh = res.webhooks;
  const parts: string[] = [];
  if (e) {
    const rps = (id: string) => (e.classes as any[]).find((c) => c.id === id)?.endpoint.rps;
    parts.push(
      `read endpoints ${rps('read')} (decision) and ${rps('balance')} (balance) req/s, bills ${rps('bill')}/s at concurrency ${e.config.concurrency}`,
    );
  }
  if (tk)
    parts.push(
      tk.tick.fannedOut
        ? `${tk.items.toLocaleString('en-US')} due items over ${tk.shards} shards: one tick (${round(tk.tick.ms / 1000, 1)} s) handed ${tk.tick.fannedOut} busy shards to claim jobs and all ran in ${round(tk.endToEnd.ms / 1000, 1)} s`
        : `one tick claimed ${tk.items.toLocaleString('en-US')} due items in ${round(tk.tick.ms / 1000, 1)} s (${tk.tick.claimsPerSecond} claims/s) and all ran in ${round(tk.endToEnd.ms / 1000, 1)} s`,
    );
  if (wh)
    parts.push(
      `webhooks: ${wh.firstAttemptsPerSecond} first attempts/s (${wh.events} events, receiver failing ${round(wh.config.failRate * 100, 0)} %)`,
    );
  if (lv?.load) parts.push(`bill lives with item-by-item accounting: ${lv.load.billsPerSecond}/s at concurrency ${lv.load.concurrency}`);
  if (parts.length)
    blocks.throughput = `On DynamoDB Local and ${res.machine.cpus} shared CPUs (load average ${res.loadAverage.start.join(' / ')} at the start of the run of ${res.recordedAt}): ${parts.join('; ')}.`;
  const li = res.lists;
  if (li)
    blocks.lists = `Measured (\`bench/lists.ts\`, phase \`lists\`, run of ${res.recordedAt}): transaction history page of 20 from the middle, p50 **${li.startingAfterMs.small.p50} ms at ${li.sizes.small.toLocaleString('en-US')} items and ${li.startingAfterMs.large.p50} ms at ${li.sizes.large.toLocaleString('en-US')}** (ratio ${li.p50Ratio}, target 1.5), p95 ${li.startingAfterMs.small.p95} / ${li.startingAfterMs.large.p95} ms, ${li.rounds} interleaved rounds. The skip page's COUNT Query alone: ${ms(li.countQueryMs.small)} at ${li.sizes.small.toLocaleString('en-US')} items, ${ms(li.countQueryMs.large)} at ${li.sizes.large.toLocaleString('en-US')}.`;
  const b = res.bundles;
  if (b) {
    const n24 = b.initCpuMs?.['24'];
    blocks.bundles = `${b.functions} functions; ${(b.overBundleLimit as unknown[]).length} bundles over ${BUNDLE_LIMIT_KB} KB; max ${round(b.sizeBytes.max / 1024, 1)} KB (${b.largest[0].handler}), median ${round(b.sizeBytes.median / 1024, 1)} KB${n24 ? `; Node 24 cold init CPU time median ${n24.median} ms, max ${n24.max} ms` : ''}.`;
  }
  return blocks;
}

const ms = (x: number) => (x >= 10_000 ? `${round(x / 1000, 0)} s` : `${round(x, 1)} ms`);

const heatIntro = (ld: any) =>
  `Units per partition key (base table and each GSI; writes item by item, reads from the items each read returned) counted in the load phase, divided by the bills of the key's owner, times ${ld.peakBillsPerSecond.toLocaleString('en-US')} bills/s times the owner's share of them: the largest bank ${ld.shares.bank * 100} %, the largest provider ${ld.shares.provider * 100} %, the largest merchant ${ld.shares.merchant * 100} %, system-wide keys 100 %. A partition takes 1,000 WCU/s and 3,000 RCU/s (DESIGN 10.6: no key over either).`;

/** The hottest keys (one per shape) of the load, writes or reads, at the peak. */
function heatTable(ld: any, kind: 'write' | 'read', n: number): string {
  const rows = ((kind === 'write' ? ld.hottest : ld.hottestReads) ?? []) as any[];
  const unit = kind === 'write' ? 'WCU/s' : 'RCU/s';
  const limit = kind === 'write' ? PARTITION_TARGET.wcu : PARTITION_TARGET.rcu;
  const peak = ld.peakBillsPerSecond.toLocaleString('en-US');
  return table(
    [
      `partition key (index), the ${n} hottest by ${kind}s`,
      'owner',
      `${kind === 'write' ? 'WRU' : 'RRU'} per bill of the owner`,
      `${unit} at ${peak} bills/s`,
      'if the owner had all of them',
      `verdict (${limit.toLocaleString('en-US')} ${unit} a partition)`,
    ],
    rows
      .slice(0, n)
      .map((h) => [
        `${h.shape} (${h.index})`,
        h.owner === 'system' ? 'system-wide' : `${owners[h.owner]} ${ld.shares[h.owner] * 100} %`,
        h.perOwnerBill,
        `**${h.atPeak}**`,
        h.atPeakAllBills,
        h.atPeak > limit ? '**over: shard it**' : h.atPeak > limit / 2 ? 'tight' : 'fine',
      ]),
  );
}

/** Replace each `<!-- bench:name -->…<!-- /bench:name -->` block of `doc` that `blocks` has. */
export function fillBlocks(doc: string, blocks: Record<string, string>, missing = 'Not measured by this run.'): string {
  // A block this run has no figures for says so: it never keeps a figure of an older run.
  return doc.replace(
    /(<!-- bench:([a-z]+) -->)[\s\S]*?(<!-- \/bench:\2 -->)/g,
    (_whole, open: string, name: string, close: string) => `${open}\n${blocks[name] ?? missing}\n${close}`,
  );
}
