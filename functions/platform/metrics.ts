/**
 * Business and health metrics as CloudWatch Embedded Metric Format (Powertools Metrics):
 * namespace `idpay`, dimensions `service` (idpay) and `stage` on every metric, plus at most
 * one low-cardinality dimension where a metric needs it (a refusal code, a billing type):
 * never a participant or resource id. Stored per invocation and published at its end
 * (`flushMetrics`: the API pipeline and every worker call it).
 *
 * The metrics (docs/infrastructure.md lists them with their alarms):
 *   BillingRequests (type)  billing requests created: bill, pay, recurring
 *   Refusals (code)         billing elements refused, by refusal code
 *   Throttles               429 answers (per-key rate limit)
 *   IdempotentReplays       stored answers replayed for a repeated Idempotency-Key
 *   ConflictRetries         transaction-conflict retries (contention on the same items)
 *   WebhookAttempts, WebhookFailures, WebhookLatency (ms)
 *   TickLagSeconds          scheduler tick start minus its scheduled time (lib/alarms.ts alarms on it)
 *   DiscoveryLimited        a merchant reached a discovery limit (once per merchant-day; lib/alarms.ts alarms on it)
 *
 * Off Lambda (the local server, tests) EMF lines go to the listeners of `onMetricsLine`
 * only, so `npm start` is not flooded; on Lambda to stdout, where CloudWatch extracts them
 * (unless LOG_LEVEL=SILENT, which the test suites set).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from '../config';

export type MetricName =
  | 'BillingRequests'
  | 'Refusals'
  | 'Throttles'
  | 'IdempotentReplays'
  | 'ConflictRetries'
  | 'WebhookAttempts'
  | 'WebhookFailures'
  | 'WebhookLatency'
  | 'TickLagSeconds'
  | 'DiscoveryLimited';

const UNITS: Record<MetricName, (typeof MetricUnit)[keyof typeof MetricUnit]> = {
  BillingRequests: MetricUnit.Count,
  Refusals: MetricUnit.Count,
  Throttles: MetricUnit.Count,
  IdempotentReplays: MetricUnit.Count,
  ConflictRetries: MetricUnit.Count,
  WebhookAttempts: MetricUnit.Count,
  WebhookFailures: MetricUnit.Count,
  WebhookLatency: MetricUnit.Milliseconds,
  TickLagSeconds: MetricUnit.Seconds,
  DiscoveryLimited: MetricUnit.Count,
};

export const METRICS_NAMESPACE = 'idpay';

const listeners = new Set<(line: string) => void>();

/** Off Lambda: receive every EMF line published in this process (tests; returns an unsubscribe). */
export function onMetricsLine(listener: (line: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let instance: Metrics | undefined;

/**
 * Off Lambda, or with LOG_LEVEL=SILENT (the test suites, also when they run the built
 * bundles): send an instance's EMF lines to the listeners instead of stdout (Powertools keeps
 * its writer in a private field).
 */
function offLambda(m: Metrics): Metrics {
  if (!process.env.AWS_LAMBDA_FUNCTION_NAME || config.logLevel().toUpperCase() === 'SILENT') {
    const emit = (line: unknown) => {
      for (const l of listeners) l(String(line));
    };
    Object.assign(m, { console: { log: emit, info: emit, debug: emit, warn: () => undefined, error: () => undefined } });
  }
  return m;
}

function metrics(): Metrics {
  instance ??= offLambda(new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'idpay', defaultDimensions: { stage: config.stage() } }));
  return instance;
}

/** Add `value` to metric `name` (stored until `flushMetrics`). A dimension makes it its own EMF line. */
export function metric(name: MetricName, value = 1, dimension?: { name: string; value: string }): void {
  try {
    if (dimension) {
      const single = offLambda(metrics().singleMetric());
      single.addDimension(dimension.name, dimension.value);
      single.addMetric(name, UNITS[name], value);
      return;
    }
    metrics().addMetric(name, UNITS[name], value);
  } catch {
    // Metrics never break the request they describe.
  }
}

/** Publish what this invocation stored (no-op when nothing was). */
export function flushMetrics(): void {
  try {
    if (instance?.hasStoredMetrics()) instance.publishStoredMetrics();
  } catch {
    // idem
  }
}
