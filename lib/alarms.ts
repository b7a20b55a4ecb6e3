import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { dlqName } from '../functions/platform/definitions';
import type { WorkQueues } from './data';
import { pascal, type StageName } from './settings';

export interface AlarmsProps {
  stage: StageName;
  api: apigw.HttpApi;
  queues: WorkQueues;
  /** Every function of the stack, by a stable construct-id-like name. */
  functions: { name: string; fn: lambda.IFunction }[];
  alarmEmail?: string;
  /** The application table (throttles, system errors). */
  table: dynamodb.ITable;
  /** EventBridge Scheduler group of the tick schedule (target errors, dropped invocations). */
  scheduleGroupName: string;
  /** The consumer of the table's stream (its iterator age). */
  eventStreamConsumer?: lambda.IFunction;
}

/**
 * Thresholds of the service-level alarms. Queue age: a jobs message is normally handled within
 * seconds; a webhook message may wait up to 15 minutes as a delayed retry (longer waits are on
 * the due index, DESIGN 9.6), so a webhook lane's alarm means "a message has waited well past
 * any retry's delay". Event stream: its consumer more than a minute behind the table's writes.
 */
export const ALARM_THRESHOLDS = {
  apiLatencyP99Ms: 2000,
  /** Account-level Lambda ConcurrentExecutions: 80% of the default regional quota of 1000. */
  lambdaConcurrency: 800,
  queueAgeSeconds: { default: 300, webhooks: 1200, 'webhooks-slow': 1200 } as Record<string, number>,
  tickLagSeconds: 120,
  eventStreamIteratorAgeMs: 60_000,
  /** Merchants that reached a discovery limit (DESIGN 10.5) in 5 minutes: any one is worth a look (a leaked key mapping customers, or a limit set too low). */
  discoveryLimited: 0,
};

/**
 * Tick lag: seconds between a tick's scheduled time and the moment it starts claiming, emitted
 * by the scheduler tick as an EMF metric (Powertools Metrics: namespace `idpay`, the default
 * dimension `service` = POWERTOOLS_SERVICE_NAME, plus `stage`). Defined here, where it is
 * alarmed on; docs/infrastructure.md documents it for the code that emits it.
 */
export const TICK_LAG_METRIC = {
  namespace: 'idpay',
  metricName: 'TickLagSeconds',
  dimensions: (stage: StageName) => ({ service: 'idpay', stage }),
} as const;

/** A merchant reached its discovery limit of the day (DESIGN 10.5): emitted once per merchant-day by customers/discovery-store.ts. */
export const discoveryLimitedMetric = (stage: StageName, period = Duration.minutes(5)) =>
  new cloudwatch.Metric({
    namespace: TICK_LAG_METRIC.namespace,
    metricName: 'DiscoveryLimited',
    dimensionsMap: TICK_LAG_METRIC.dimensions(stage),
    statistic: 'Sum',
    period,
  });

export const tickLagMetric = (stage: StageName, period = Duration.minutes(1)) =>
  new cloudwatch.Metric({
    namespace: TICK_LAG_METRIC.namespace,
    metricName: TICK_LAG_METRIC.metricName,
    dimensionsMap: TICK_LAG_METRIC.dimensions(stage),
    statistic: 'Maximum',
    period,
  });

/** The DynamoDB operations the functions use (system errors are reported per operation). */
export const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.TRANSACT_GET_ITEMS,
];

/** Account-wide Lambda metrics (no dimension): every function of the region. */
export const accountLambdaMetric = (metricName: 'Throttles' | 'ConcurrentExecutions', statistic: string, period = Duration.minutes(1)) =>
  new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName, statistic, period });

export const schedulerMetric = (metricName: 'TargetErrorCount' | 'InvocationDroppedCount' | 'InvocationAttemptCount', group: string) =>
  new cloudwatch.Metric({
    namespace: 'AWS/Scheduler',
    metricName,
    dimensionsMap: { ScheduleGroup: group },
    statistic: 'Sum',
    period: Duration.minutes(5),
  });

/**
 * Alarms, all sent to one SNS topic:
 * - each DLQ: ApproximateNumberOfMessagesVisible > 0 (max over 1 minute);
 * - each function: Errors > 0 (sum over 5 minutes). One alarm per function rather than one
 *   metric-math alarm across all: CloudWatch math alarms take at most 10 metrics and there
 *   are ~60 functions; a per-function alarm also names the broken handler;
 * - the API: 5xx responses > 0 (sum over 5 minutes). Handlers turn errors into 500
 *   envelopes, so this catches what the Lambda Errors metric does not;
 * - the API: p99 latency > 2 s for two 5-minute periods;
 * - Lambda (account-wide, the metrics have no per-stage dimension): Throttles > 0 over 5 min,
 *   ConcurrentExecutions (max) > 800;
 * - the table: read/write throttle events > 0, system errors > 0 (5 min);
 * - each work queue: age of the oldest message above ALARM_THRESHOLDS.queueAgeSeconds;
 * - the Scheduler group: target errors > 0 and dropped invocations > 0 (5 min);
 * - tick lag (TICK_LAG_METRIC, max) > 120 s for two minutes in a row;
 * - discovery: a merchant reached its daily look-up or miss limit (DiscoveryLimited > 0 in 5 min);
 * - the event stream: a failed batch described to its failure queue (> 0 visible), its
 *   consumer's iterator age (max) > 60 s for two minutes in a row.
 */
export class Alarms extends Construct {
  readonly topic: sns.Topic;
  readonly dlqAlarms: cloudwatch.Alarm[] = [];
  readonly functionErrorAlarms: cloudwatch.Alarm[] = [];
  readonly api5xxAlarm: cloudwatch.Alarm;
  /** Every service-level alarm (everything but the per-function Errors alarms), by construct id. */
  readonly serviceAlarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    // Not KMS-encrypted: CloudWatch cannot publish to a topic encrypted with the AWS managed
    // SNS key, and notifications carry only alarm names and states.
    this.topic = new sns.Topic(this, 'Topic', { displayName: `idpay ${props.stage} alarms`, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const prefix = `idpay-${props.stage}`;

    for (const { definition, dlq } of props.queues.all) {
      const alarm = new cloudwatch.Alarm(this, `${pascal(dlqName(definition))}NotEmpty`, {
        alarmName: `${prefix}-${dlqName(definition)}-not-empty`,
        alarmDescription: `Messages in the ${dlqName(definition)} DLQ: inspect, fix, then npm run ops -- dlq:replay`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      this.dlqAlarms.push(alarm);
    }

    for (const { name, fn } of props.functions) {
      const alarm = new cloudwatch.Alarm(this, `${name}Errors`, {
        alarmDescription: `Unhandled errors or timeouts in ${name}`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      this.functionErrorAlarms.push(alarm);
    }

    this.api5xxAlarm = new cloudwatch.Alarm(this, 'Api5xx', {
      alarmName: `${prefix}-api-5xx`,
      alarmDescription: 'The API answered 5xx (500 envelopes, integration failures or timeouts)',
      metric: props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.api5xxAlarm.addAlarmAction(action);
    this.serviceAlarms.push(...this.dlqAlarms, this.api5xxAlarm);

    const alarm = (id: string, name: string, description: string, metric: cloudwatch.IMetric, threshold: number, evaluationPeriods = 1) => {
      const a = new cloudwatch.Alarm(this, id, {
        alarmName: `${prefix}-${name}`,
        alarmDescription: description,
        metric,
        threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      a.addAlarmAction(action);
      this.serviceAlarms.push(a);
      return a;
    };
    const t = ALARM_THRESHOLDS;
    const five = Duration.minutes(5);

    alarm(
      'ApiLatencyP99',
      'api-latency-p99',
      `API p99 latency above ${t.apiLatencyP99Ms} ms for 10 minutes`,
      props.api.metricLatency({ period: five, statistic: 'p99' }),
      t.apiLatencyP99Ms,
      2,
    );
    alarm(
      'LambdaThrottles',
      'lambda-throttles',
      'Lambda throttled invocations in this account and region (concurrency exhausted)',
      accountLambdaMetric('Throttles', 'Sum', five),
      0,
    );
    alarm(
      'LambdaConcurrency',
      'lambda-concurrency',
      `Lambda concurrent executions above ${t.lambdaConcurrency} (80% of the default regional quota)`,
      accountLambdaMetric('ConcurrentExecutions', 'Maximum'),
      t.lambdaConcurrency,
    );
    alarm(
      'TableThrottles',
      'table-throttles',
      'DynamoDB throttled reads or writes on the application table',
      new cloudwatch.MathExpression({
        expression: 'r + w',
        usingMetrics: {
          r: props.table.metric('ReadThrottleEvents', { statistic: 'Sum', period: five }),
          w: props.table.metric('WriteThrottleEvents', { statistic: 'Sum', period: five }),
        },
        period: five,
        label: 'throttle events',
      }),
      0,
    );
    alarm(
      'TableSystemErrors',
      'table-system-errors',
      'DynamoDB system errors (HTTP 500) on the application table',
      props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: five, statistic: 'Sum' }),
      0,
    );
    for (const { definition, queue } of props.queues.all) {
      const limit = t.queueAgeSeconds[definition.name] ?? t.queueAgeSeconds.default!;
      alarm(
        `${pascal(definition.name)}OldestMessage`,
        `${definition.name}-oldest-message`,
        `A ${definition.name} message is older than ${limit} s (workers failing or behind)`,
        queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
        limit,
        5,
      );
    }
    alarm(
      'SchedulerTargetErrors',
      'scheduler-target-errors',
      'EventBridge Scheduler could not invoke the scheduler tick',
      schedulerMetric('TargetErrorCount', props.scheduleGroupName),
      0,
    );
    alarm(
      'SchedulerDropped',
      'scheduler-dropped',
      'EventBridge Scheduler dropped tick invocations after its retries',
      schedulerMetric('InvocationDroppedCount', props.scheduleGroupName),
      0,
    );
    alarm(
      'TickLag',
      'tick-lag',
      `The scheduler tick started more than ${t.tickLagSeconds} s after its scheduled time`,
      tickLagMetric(props.stage),
      t.tickLagSeconds,
      2,
    );
    alarm(
      'DiscoveryLimited',
      'discovery-limited',
      "A merchant reached its discovery limit of the Lagos day (customer look-ups or misses): see the provider's audit log (merchant.discovery_limited); a leaked key mapping customers, or a limit the provider should raise",
      discoveryLimitedMetric(props.stage),
      t.discoveryLimited,
    );
    alarm(
      'EventStreamFailures',
      'event-stream-failures',
      'A batch of event stream records ran out of retries (its events have no deliveries yet): inspect, fix, then npm run ops -- stream:replay within 24 h',
      props.queues.streamFailures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      0,
    );
    if (props.eventStreamConsumer) {
      alarm(
        'EventStreamIteratorAge',
        'event-stream-iterator-age',
        `The event stream consumer is more than ${t.eventStreamIteratorAgeMs / 1000} s behind the table's writes (webhooks and the events API lag)`,
        props.eventStreamConsumer.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
        t.eventStreamIteratorAgeMs,
        2,
      );
    }
  }
}
