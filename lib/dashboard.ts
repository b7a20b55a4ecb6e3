import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { dlqName } from '../functions/platform/definitions';
import { accountLambdaMetric, schedulerMetric, tickLagMetric, TABLE_OPERATIONS, type Alarms } from './alarms';
import type { WorkQueues } from './data';
import type { StageName } from './settings';

export interface DashboardProps {
  stage: StageName;
  api: apigw.HttpApi;
  table: dynamodb.ITable;
  queues: WorkQueues;
  functions: { name: string; fn: lambda.IFunction }[];
  scheduleGroupName: string;
  alarms: Alarms;
}

const minute = Duration.minutes(1);
const five = Duration.minutes(5);

/**
 * One CloudWatch dashboard per stage, `idpay-<stage>`: the state of every service-level alarm,
 * then a row each for the API, Lambda, the table, the queues and the time path. Per-function
 * graphs use SEARCH over this stage's function names (a graph takes at most 500 metrics;
 * SEARCH keeps the dashboard valid as functions come and go).
 */
export class Dashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const { api, table, queues } = props;
    const d = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `idpay-${props.stage}`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard = d;
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = [], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, right, width, height: 6 });
    // Every function of this stage's stack (its names start with the stack name).
    const fnSearch = (metric: string, stat: string, label: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{AWS/Lambda,FunctionName} MetricName="${metric}" FunctionName="${fnPrefix(props)}"', '${stat}', 60)`,
        label,
        period: minute,
      });

    d.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: `idpay ${props.stage}: alarms`,
        alarms: props.alarms.serviceAlarms,
        width: 24,
        height: 4,
      }),
    );
    d.addWidgets(
      graph('API requests and errors', [
        api.metricCount({ period: minute, statistic: 'Sum', label: 'requests' }),
        api.metricClientError({ period: minute, statistic: 'Sum', label: '4xx' }),
        api.metricServerError({ period: minute, statistic: 'Sum', label: '5xx' }),
      ]),
      graph(
        'API latency (ms)',
        ['p50', 'p90', 'p99'].map((s) => api.metricLatency({ period: minute, statistic: s, label: s })),
      ),
      graph(
        'API integration latency (ms)',
        ['p50', 'p99'].map((s) => api.metricIntegrationLatency({ period: minute, statistic: s, label: s })),
      ),
    );
    d.addWidgets(
      graph('Lambda errors by function', [fnSearch('Errors', 'Sum', '')]),
      graph('Lambda duration p99 by function (ms)', [fnSearch('Duration', 'p99', '')]),
      graph(
        'Lambda throttles and concurrency (account)',
        [accountLambdaMetric('Throttles', 'Sum')],
        [accountLambdaMetric('ConcurrentExecutions', 'Maximum')],
      ),
    );
    d.addWidgets(
      graph('Table consumed capacity', [
        table.metricConsumedReadCapacityUnits({ period: minute, statistic: 'Sum', label: 'RCU' }),
        table.metricConsumedWriteCapacityUnits({ period: minute, statistic: 'Sum', label: 'WCU' }),
      ]),
      graph('Table throttles and system errors', [
        table.metric('ReadThrottleEvents', { period: five, statistic: 'Sum', label: 'read throttles' }),
        table.metric('WriteThrottleEvents', { period: five, statistic: 'Sum', label: 'write throttles' }),
        table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: five, statistic: 'Sum' }),
      ]),
      graph('Table transaction conflicts', [
        table.metric('TransactionConflict', { period: minute, statistic: 'Sum', label: 'conflicts' }),
        table.metric('ConditionalCheckFailedRequests', { period: minute, statistic: 'Sum', label: 'condition failures' }),
      ]),
    );
    d.addWidgets(
      graph(
        'Queues: visible messages',
        queues.all.map((q) =>
          q.queue.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum', label: q.definition.name }),
        ),
      ),
      graph(
        'Queues: age of oldest message (s)',
        queues.all.map((q) =>
          q.queue.metricApproximateAgeOfOldestMessage({ period: minute, statistic: 'Maximum', label: q.definition.name }),
        ),
      ),
      graph(
        'DLQ depth',
        queues.all.map((q) =>
          q.dlq.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum', label: dlqName(q.definition) }),
        ),
      ),
    );
    d.addWidgets(
      graph('Scheduler: tick invocations and errors', [
        schedulerMetric('InvocationAttemptCount', props.scheduleGroupName),
        schedulerMetric('TargetErrorCount', props.scheduleGroupName),
        schedulerMetric('InvocationDroppedCount', props.scheduleGroupName),
      ]),
      graph('Tick lag (s)', [tickLagMetric(props.stage)]),
      graph(
        'Tick duration (ms)',
        props.functions
          .filter((f) => f.name === 'WorkerSchedulerTick')
          .map((f) => f.fn.metricDuration({ period: minute, statistic: 'Maximum', label: 'max' })),
      ),
    );
  }
}

/** The stack name every function name of the stage starts with (CloudFormation-generated names). */
const fnPrefix = (props: DashboardProps) => `Idpay-${props.stage}`;
