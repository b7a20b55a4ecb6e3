/**
 * The cost model of docs/cost.md, computed from the measured figures of one `npm run bench`
 * and a table of AWS list prices (us-east-1, on-demand, as known on PRICES_AS_OF — they
 * change: check https://aws.amazon.com/<service>/pricing before relying on them).
 *
 * One bill = POST /v1/customer/bill (1 phrase) + the bank's POST /v1/billing/bank-response
 * (approve) + the webhook deliveries both send (billing.request to the bank; billing.response
 * to the merchant and its provider). Their outbox writes (event + delivery items) are inside
 * the measured capacity of the two requests; the deliveries add the worker's requests, SQS
 * and Lambda time. Settlement is per merchant per business day (amortized: ~0 per bill).
 * One webhook = one event committed through the outbox with one delivery, delivered at the
 * first attempt (retries multiply the delivery part: see `retryFactor`).
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
  /** Lambda platform lines per invocation (START/END/REPORT), bytes, estimate. */
  lambdaPlatformLogBytes: 350,
  /** Provisioned capacity (the steady part of the load, with auto scaling): per WCU-hour / RCU-hour. */
  dynamoWcuHour: 0.00065,
  dynamoRcuHour: 0.00013,
  /** Auto scaling's target utilization: provisioned units are paid at 1 / this of what is used. */
  provisionedTargetUtilization: 0.7,
} as const;

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
const gbs = (ms: number) => (Math.ceil(ms) / 1000) * PRICES.lambdaMemoryGb;
const r4 = (n: number) => Math.round(n * 10000) / 10000;

interface Measured {
  /** DynamoDB per unit as perUnit() writes it. */
  dynamodb: { requests: number; capacity: { read: number; write: number }; transactItems: Record<string, number> };
  ms: number;
  sqsMessages: number;
  logBytes: number;
}

/** ConditionCheck items: DynamoDB Local reports 0 capacity for them, AWS charges 2 WRU (transactional, ≤ 1 KB). */
const conditionCheckWru = (m: Measured) => 2 * (m.dynamodb.transactItems.ConditionCheck ?? 0);

function requestLines(name: string, m: Measured, viaApi: boolean): CostLine[] {
  const lines: CostLine[] = [];
  if (viaApi) lines.push({ item: `${name}: API Gateway HTTP API request`, quantity: '1', usdPerMillion: PRICES.apiGatewayHttpPerMillion });
  lines.push({ item: `${name}: Lambda request`, quantity: '1', usdPerMillion: PRICES.lambdaRequestPerMillion });
  lines.push({
    item: `${name}: Lambda duration (512 MB arm64)`,
    quantity: `${Math.ceil(m.ms)} ms = ${r4(gbs(m.ms))} GB-s`,
    usdPerMillion: gbs(m.ms) * PRICES.lambdaArmGbSecond * 1e6,
  });
  const wru = m.dynamodb.capacity.write + conditionCheckWru(m);
  lines.push({
    item: `${name}: DynamoDB writes`,
    quantity: `${r4(wru)} WRU`,
    usdPerMillion: per(wru, PRICES.dynamoWriteRequestUnitPerMillion),
  });
  lines.push({
    item: `${name}: DynamoDB reads`,
    quantity: `${r4(m.dynamodb.capacity.read)} RRU`,
    usdPerMillion: per(m.dynamodb.capacity.read, PRICES.dynamoReadRequestUnitPerMillion),
  });
  if (m.sqsMessages)
    lines.push({
      item: `${name}: SQS SendMessage (after commit)`,
      quantity: `${m.sqsMessages}`,
      usdPerMillion: per(m.sqsMessages, PRICES.sqsRequestPerMillion),
    });
  const logGb = (m.logBytes + PRICES.lambdaPlatformLogBytes) / 1e9;
  lines.push({
    item: `${name}: CloudWatch Logs ingestion`,
    quantity: `${m.logBytes} B + ${PRICES.lambdaPlatformLogBytes} B platform`,
    usdPerMillion: logGb * 1e6 * PRICES.cloudwatchLogsIngestPerGb,
  });
  return lines;
}

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
      item: `${name}: webhook worker Lambda duration`,
      quantity: `${count} × ${d.workerMsPerMessage} ms`,
      usdPerMillion: count * (d.workerMsPerMessage / 1000) * PRICES.lambdaMemoryGb * PRICES.lambdaArmGbSecond * 1e6,
    },
    {
      item: `${name}: DynamoDB writes (claim attempt, record outcome)`,
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

export function costModel(res: any) {
  const e = res.endpoints;
  const wc = res.webhookCost;
  if (!e || !wc) return undefined;
  const bill = (e.classes as any[]).find((c) => c.id === 'bill');
  const approve = e.lifecycle?.bankResponseApprove;
  if (!bill || !approve) return undefined;
  const BODY = 700; // bytes of a billing.* webhook body + headers, estimate

  const billM: Measured = {
    dynamodb: bill.dynamodb,
    ms: bill.serial.latency.p50,
    sqsMessages: bill.sqsMessagesPerUnit,
    logBytes: bill.logBytesPerRequest,
  };
  const approveM: Measured = {
    dynamodb: approve.dynamodb,
    ms: approve.latency.p50,
    sqsMessages: approve.sqsMessagesPerUnit,
    logBytes: approve.logBytesPerRequest,
  };
  const deliveries = billM.sqsMessages + approveM.sqsMessages;
  const billLines = [
    ...requestLines('bill', billM, true),
    ...requestLines('bank-response', approveM, true),
    ...deliveryLines('deliveries', wc, BODY, deliveries),
  ];

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
  const total = (lines: CostLine[]) => Math.round(lines.reduce((a, l) => a + l.usdPerMillion, 0) * 100) / 100;
  const round2 = (lines: CostLine[]) => lines.map((l) => ({ ...l, usdPerMillion: Math.round(l.usdPerMillion * 100) / 100 }));
  const deliveryOnly = total(deliveryLines('d', wc, BODY, 1));
  const attemptsMean = res.webhooks?.attemptsPerDelivery?.mean ?? 1.43;
  return {
    pricesAsOf: PRICES_AS_OF,
    prices: PRICES,
    perMillionBills: { usd: total(billLines), deliveriesPerBill: deliveries, lines: round2(billLines) },
    perMillionWebhooks: { usd: total(webhookLines), lines: round2(webhookLines) },
    provisioned: {
      note: `DynamoDB on provisioned capacity with auto scaling at ${PRICES.provisionedTargetUtilization * 100} % utilization (${PRICES.dynamoWcuHour} USD per WCU-hour, ${PRICES.dynamoRcuHour} per RCU-hour): for the steady part of the load`,
      perMillionBills: total(onProvisioned(billLines)),
      perMillionWebhooks: total(onProvisioned(webhookLines)),
    },
    retryFactor: {
      note: `a receiver failing 30 % of requests needs ${attemptsMean} attempts per delivery (bench/webhooks.ts): the delivery part (${deliveryOnly} USD per million) scales with it; a failed attempt also writes its attempt record`,
      perMillionWebhooksAt30PercentFailures: Math.round((total(webhookLines) + deliveryOnly * (attemptsMean - 1)) * 100) / 100,
    },
    durations: {
      billMs: billM.ms,
      bankResponseMs: approveM.ms,
      webhookWorkerMsPerMessage: wc.delivery.workerMsPerMessage,
      note: 'measured at concurrency 1 on the local stack (DynamoDB Local); on AWS the DynamoDB round trips are faster, so Lambda time is an upper bound',
    },
  };
}
