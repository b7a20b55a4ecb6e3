/**
 * The cost model of docs/cost.md, computed from the measured figures of one `npm run bench`
 * and a table of AWS list prices (us-east-1, on-demand, as known on PRICES_AS_OF — they
 * change: check https://aws.amazon.com/<service>/pricing before relying on them).
 *
 * Per million bills (DESIGN 9.6 and 10.2 scope, phase `lives`, bench/lives.ts): one bill life =
 * a 1-phrase bill + the bank's approval + the 3 deliveries they cause + the bill's share of
 * its merchant's settlement at 10 bills per merchant-day (and, reported, at 1), per variant
 * (first / repeat bill, with and without Idempotency-Key). The honest model of DESIGN 10.2:
 * X-Ray at the stack's sampling, receivers that answer in 150 ms (Lambda waits and is
 * billed), AWS's own per-invocation log lines at ~600 B. DynamoDB write and read units are counted item by item; SQS
 * requests and worker invocations as the proxies saw them; Lambda durations and log bytes
 * from the same phase's timing pass (local: upper bounds).
 *
 * Per million webhooks (phase `webhookCost`): one event committed with one delivery,
 * delivered at the first attempt (retries multiply the delivery part: see `retryFactor`).
 */

export const PRICES_AS_OF = '2025-06 (list prices as known then; check before use)';

export const PRICES = {
  region: 'us-east-1',
  apiGatewayHttpPerMillion: 1.0, // HTTP API, first 300 M requests/month ($0.90 after)
  lambdaRequestPerMillion: 0.2,
  lambdaArmGbSecond: 0.0000133334, // arm64, first 6 B GB-s/month tier
  lambdaMemoryGb: 0.5, // 512 MB (lib/lambda.ts)
  dynamoWriteRequestUnitPerMillion: 0.625, // on-demand WRU (after the Nov 2024 price cut)
  dynamoReadRequestUnitPerMillion: 0.125, // on-demand RRU
  sqsRequestPerMillion: 0.4, // standard queue, per 64 KB request, after the free 1 M/month
  schedulerInvocationPerMillion: 1.0, // EventBridge Scheduler, after 14 M free/month
  cloudwatchLogsIngestPerGb: 0.5, // standard class ingestion (Lambda logs: first tier)
  dataTransferOutPerGb: 0.09, // internet egress (webhook POSTs), first 10 TB/month
  /**
   * AWS's own lines per invocation (START, END, REPORT, and with active tracing the REPORT's
   * XRAY TraceId/SegmentId/Sampled line parts), bytes as a deployed function writes them
   * (measured on CloudWatch by the issue 50 review: ~600; the model said 350 before).
   * The stack keeps the system log level at INFO, so a normal invocation writes them; WARN
   * would make this 0 for a normal invocation, and is not taken until AWS is shown to keep a
   * timeout's or crash's line at WARN (docs/decisions/platform-log-level.md).
   */
  lambdaPlatformLogBytes: 600,
  /** X-Ray: per million traces recorded (retrieval and scans, 0.50 per million, are the console's and left out). */
  xrayTracesRecordedPerMillion: 5.0,
  /**
   * The share of invocations X-Ray records with the default sampling rule the stack keeps
   * (`Tracing.ACTIVE`, lib/lambda.ts; 1 request a second + 5 % of the rest): 5 % at any volume
   * where the reservoir's 1 a second is negligible (a million bills at 5 bills/s and up).
   */
  xraySampledShare: 0.05,
  /** A webhook receiver's answer time in the model: Lambda waits for it and is billed (the bench's local receiver answers at once). */
  receiverMs: 150,
  /**
   * What platform/log.ts adds to each of its lines on Lambda and not in the bench's process
   * (no Lambda there): `function_name`, `function_request_id`, `cold_start`, `xray_trace_id`,
   * with values of a deployed function's length.
   */
  lambdaLogContextBytes: Buffer.byteLength(
    ',"function_name":"idpay-sandbox-api-ApiMerchantBillFn0F3A2B1C-AbCdEfGh1234","function_request_id":"3f2b8c1e-9d4a-4b7e-8f21-6c5d4e3b2a19","cold_start":false,"xray_trace_id":"1-674d2e1f-8a9b0c1d2e3f4a5b6c7d8e9f"',
  ),
  /** Provisioned capacity (the steady part of the load, with auto scaling): per WCU-hour / RCU-hour. */
  dynamoWcuHour: 0.00065,
  dynamoRcuHour: 0.00013,
  /** Auto scaling's target utilization: provisioned units are paid at 1 / this of what is used. */
  provisionedTargetUtilization: 0.7,
} as const;

/**
 * Lambda duration on AWS is modelled, not measured: the invocations' CPU time measured locally
 * (an upper bound: it includes the local HTTP server, the bench's proxies and the in-process
 * SQS emulator) plus the round trips they wait for, sequentially, in-region.
 */
export const LAMBDA_MODEL = { dynamoRequestMs: 6, sqsSendMs: 10 } as const;

/**
 * What one write (read) unit costs on provisioned capacity held at the target utilization,
 * per million: a WCU serves 3,600 writes an hour. 0.258 USD per million WRU against 0.625
 * on-demand (x 0.41) for a load steady enough to provision; bursts above it stay on-demand
 * prices' business (or throttle), so the model offers it as an option for the steady part.
 */
export const provisionedPerMillion = {
  write: (PRICES.dynamoWcuHour / 3600 / PRICES.provisionedTargetUtilization) * 1e6,
  read: (PRICES.dynamoRcuHour / 3600 / PRICES.provisionedTargetUtilization) * 1e6,
};

/** The same lines with DynamoDB on provisioned capacity (auto scaling at the target utilization). */
export function onProvisioned(lines: CostLine[]): CostLine[] {
  return lines.map((l) =>
    /DynamoDB writes|\(WRU\)/.test(l.item)
      ? { ...l, usdPerMillion: (l.usdPerMillion * provisionedPerMillion.write) / PRICES.dynamoWriteRequestUnitPerMillion }
      : /DynamoDB reads|\(RRU\)/.test(l.item)
        ? { ...l, usdPerMillion: (l.usdPerMillion * provisionedPerMillion.read) / PRICES.dynamoReadRequestUnitPerMillion }
        : l,
  );
}

export interface CostLine {
  item: string;
  quantity: string;
  usdPerMillion: number;
}

const per = (units: number, pricePerMillion: number) => units * pricePerMillion;
const r4 = (n: number) => Math.round(n * 10000) / 10000;

/** One delivery at the first attempt, after its commit (worker side only). */
function deliveryLines(name: string, wc: any, bodyBytes: number, count: number): CostLine[] {
  const d = wc.delivery;
  const perBatch = d.messagesPerBatch as number;
  const sqs = 1 / perBatch + (d.sqsPerDelivery.DeleteMessageBatch ?? 1 / perBatch);
  const lines: CostLine[] = [
    {
      item: `${name}: SQS ReceiveMessage + DeleteMessageBatch (event source, batches of ${perBatch})`,
      quantity: `${r4(sqs * count)}`,
      usdPerMillion: per(sqs * count, PRICES.sqsRequestPerMillion),
    },
    {
      item: `${name}: webhook worker Lambda request (per batch)`,
      quantity: `${r4(count / perBatch)}`,
      usdPerMillion: per(count / perBatch, PRICES.lambdaRequestPerMillion),
    },
    {
      item: `${name}: webhook worker Lambda duration (+ ${PRICES.receiverMs} ms waiting on the receiver)`,
      quantity: `${count} × (${d.workerMsPerMessage} + ${PRICES.receiverMs}) ms`,
      usdPerMillion: count * ((d.workerMsPerMessage + PRICES.receiverMs) / 1000) * PRICES.lambdaMemoryGb * PRICES.lambdaArmGbSecond * 1e6,
    },
    {
      item: `${name}: X-Ray traces (${PRICES.xraySampledShare * 100} % of worker invocations)`,
      quantity: `${r4((count / perBatch) * PRICES.xraySampledShare)}`,
      usdPerMillion: per((count / perBatch) * PRICES.xraySampledShare, PRICES.xrayTracesRecordedPerMillion),
    },
    {
      item: `${name}: DynamoDB writes (record outcome)`,
      quantity: `${r4(d.dynamodbPerDelivery.capacity.write * count)} WRU`,
      usdPerMillion: per(d.dynamodbPerDelivery.capacity.write * count, PRICES.dynamoWriteRequestUnitPerMillion),
    },
    {
      item: `${name}: DynamoDB reads`,
      quantity: `${r4(d.dynamodbPerDelivery.capacity.read * count)} RRU`,
      usdPerMillion: per(d.dynamodbPerDelivery.capacity.read * count, PRICES.dynamoReadRequestUnitPerMillion),
    },
    {
      item: `${name}: data transfer out (signed POST)`,
      quantity: `${count} × ~${bodyBytes} B`,
      usdPerMillion: ((count * bodyBytes) / 1e9) * 1e6 * PRICES.dataTransferOutPerGb,
    },
    {
      item: `${name}: CloudWatch Logs (worker lines + platform, per batch)`,
      quantity: `${count} × ~${150 + Math.round(PRICES.lambdaPlatformLogBytes / perBatch)} B`,
      usdPerMillion: ((count * (150 + PRICES.lambdaPlatformLogBytes / perBatch)) / 1e9) * 1e6 * PRICES.cloudwatchLogsIngestPerGb,
    },
  ];
  return lines;
}

/** One bill life of a variant of phase `lives`, per million bills. */
export function billLifeLines(v: any, t: any): CostLine[] {
  const batches = (v.sqs.lambdaBatches as number) + (v.streams.batchesPerLife as number);
  const invocations = 2 + batches;
  const sends = (v.sqs.byOp.SendMessage ?? 0) + (v.sqs.byOp.SendMessageBatch ?? 0) + (v.sqs.byOp.ChangeMessageVisibility ?? 0);
  const cpu = t.billCpuMs.p50 + t.approvalCpuMs.p50 + t.workersCpuMsPerLife;
  const waits = v.requestsPerLife * LAMBDA_MODEL.dynamoRequestMs + sends * LAMBDA_MODEL.sqsSendMs;
  const lambdaMs = cpu + waits + invocations * 0.5; // + billing's rounding up to the ms
  const lambdaGbs = (lambdaMs / 1000) * PRICES.lambdaMemoryGb;
  const deliveries = v.deliveries.perLife as number;
  const receiverGbs = ((deliveries * PRICES.receiverMs) / 1000) * PRICES.lambdaMemoryGb;
  // Results recorded before logLinesPerLife existed count no Lambda context (as they were rendered).
  const logBytes =
    (t.logBytesPerLife as number) +
    ((t.logLinesPerLife as number | undefined) ?? 0) * PRICES.lambdaLogContextBytes +
    invocations * PRICES.lambdaPlatformLogBytes;
  return [
    { item: 'API Gateway HTTP API requests (bill + approval)', quantity: '2', usdPerMillion: 2 * PRICES.apiGatewayHttpPerMillion },
    {
      item: 'Lambda requests (2 API + worker batches)',
      quantity: `${r4(invocations)}`,
      usdPerMillion: per(invocations, PRICES.lambdaRequestPerMillion),
    },
    {
      item: 'Lambda duration (512 MB arm64; modelled: local CPU time + in-region round trips)',
      quantity: `${Math.round(cpu)} ms CPU + ${r4(v.requestsPerLife)} DynamoDB × ${LAMBDA_MODEL.dynamoRequestMs} ms + ${r4(sends)} SQS × ${LAMBDA_MODEL.sqsSendMs} ms = ${Math.round(lambdaMs)} ms = ${r4(lambdaGbs)} GB-s`,
      usdPerMillion: lambdaGbs * PRICES.lambdaArmGbSecond * 1e6,
    },
    {
      item: `Lambda duration waiting on webhook receivers (${PRICES.receiverMs} ms an answer)`,
      quantity: `${r4(deliveries)} deliveries × ${PRICES.receiverMs} ms = ${r4(receiverGbs)} GB-s`,
      usdPerMillion: receiverGbs * PRICES.lambdaArmGbSecond * 1e6,
    },
    {
      item: `X-Ray traces (active tracing, ${PRICES.xraySampledShare * 100} % of invocations sampled)`,
      quantity: `${r4(invocations * PRICES.xraySampledShare)} traces`,
      usdPerMillion: per(invocations * PRICES.xraySampledShare, PRICES.xrayTracesRecordedPerMillion),
    },
    {
      item: 'DynamoDB writes (WRU, item by item)',
      quantity: `${r4(v.wru)} WRU`,
      usdPerMillion: per(v.wru, PRICES.dynamoWriteRequestUnitPerMillion),
    },
    { item: 'DynamoDB reads (RRU)', quantity: `${r4(v.rru)} RRU`, usdPerMillion: per(v.rru, PRICES.dynamoReadRequestUnitPerMillion) },
    {
      item: 'SQS requests (sends, receives with messages, deletes)',
      quantity: `${r4(v.sqs.requestsPerLife)}`,
      usdPerMillion: per(v.sqs.requestsPerLife, PRICES.sqsRequestPerMillion),
    },
    {
      item: 'data transfer out (signed webhook POSTs)',
      quantity: `${v.deliveries.bytesPerLife} B`,
      usdPerMillion: (v.deliveries.bytesPerLife / 1e9) * 1e6 * PRICES.dataTransferOutPerGb,
    },
    {
      item: 'CloudWatch Logs ingestion (lines with their Lambda context + EMF + platform lines)',
      quantity: `${Math.round(logBytes)} B`,
      usdPerMillion: (logBytes / 1e9) * 1e6 * PRICES.cloudwatchLogsIngestPerGb,
    },
  ];
}

const total = (lines: CostLine[]) => Math.round(lines.reduce((a, l) => a + l.usdPerMillion, 0) * 100) / 100;
const round2 = (lines: CostLine[]) => lines.map((l) => ({ ...l, usdPerMillion: Math.round(l.usdPerMillion * 100) / 100 }));

function webhookModel(wc: any, attemptsMean: number) {
  const BODY = 700; // bytes of a billing.* webhook body + headers, estimate
  const commit = wc.commit.dynamodbPerEvent;
  const webhookLines: CostLine[] = [
    {
      item: 'outbox: event + delivery items in the business transaction (WRU)',
      quantity: `${commit.capacity.write} WRU`,
      usdPerMillion: per(commit.capacity.write, PRICES.dynamoWriteRequestUnitPerMillion),
    },
    {
      item: 'outbox: endpoint lookup Query (RRU)',
      quantity: `${commit.capacity.read} RRU`,
      usdPerMillion: per(commit.capacity.read, PRICES.dynamoReadRequestUnitPerMillion),
    },
    {
      item: 'outbox: SQS SendMessage',
      quantity: `${wc.commit.sqsMessagesPerEvent}`,
      usdPerMillion: per(wc.commit.sqsMessagesPerEvent, PRICES.sqsRequestPerMillion),
    },
    ...deliveryLines('delivery', wc, BODY, 1),
  ];
  const deliveryOnly = total(deliveryLines('d', wc, BODY, 1));
  return {
    usd: total(webhookLines),
    lines: round2(webhookLines),
    provisioned: total(onProvisioned(webhookLines)),
    retryFactor: {
      note: `a receiver failing 30 % of requests needs ${attemptsMean} attempts per delivery (bench/webhooks.ts): the delivery part (${deliveryOnly} USD per million) scales with it; a failed attempt also writes its attempt record`,
      perMillionWebhooksAt30PercentFailures: Math.round((total(webhookLines) + deliveryOnly * (attemptsMean - 1)) * 100) / 100,
    },
    note: "DynamoDB capacity as DynamoDB Local reports it (phase webhookCost), 2 WRU added per ConditionCheck; the bill lives' item-by-item count is the reference",
  };
}

export function costModel(res: any) {
  const lives = res.lives;
  const wc = res.webhookCost;
  if (!lives && !wc) return undefined;
  const bills = lives
    ? (lives.variants as any[]).map((v) => {
        const lines = billLifeLines(v, lives.timing);
        return {
          id: v.id,
          label: v.label,
          info: v.info,
          usd: total(lines),
          provisionedUsd: total(onProvisioned(lines)),
          lines: round2(lines),
        };
      })
    : undefined;
  // The targets' scope: 10 bills per merchant-day (the `@1` variants are reported beside it).
  const targeted = bills?.filter((b) => !b.info && !b.id.endsWith('@1')) ?? [];
  const worst = targeted.length ? targeted.reduce((a, b) => (b.usd > a.usd ? b : a)) : undefined;
  return {
    pricesAsOf: PRICES_AS_OF,
    prices: PRICES,
    provisionedNote: `DynamoDB on provisioned capacity with auto scaling at ${PRICES.provisionedTargetUtilization * 100} % utilization (${PRICES.dynamoWcuHour} USD per WCU-hour, ${PRICES.dynamoRcuHour} per RCU-hour): for the steady part of the load`,
    bills,
    /** The most expensive targeted variant (the 9.6 target must hold for each). */
    headline: worst && { id: worst.id, label: worst.label, usd: worst.usd, provisionedUsd: worst.provisionedUsd },
    webhooks: wc ? webhookModel(wc, res.webhooks?.attemptsPerDelivery?.mean ?? 1.43) : undefined,
  };
}
