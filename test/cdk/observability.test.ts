/**
 * Alarms and the dashboard of each stage: every service-level alarm exists with its
 * metric, threshold and action, and the stage's dashboard shows them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { QUEUES, dlqName } from '../../functions/platform/definitions';
import { ALARM_THRESHOLDS, TICK_LAG_METRIC } from '../../lib/alarms';
import { buildStage, type BuiltStage } from '../support/cdk-stage';
import type { StageName } from '../../lib/settings';

const built = {} as Record<StageName, BuiltStage>;
beforeAll(() => {
  for (const stage of ['sandbox', 'live'] as const) built[stage] = buildStage(stage);
});

describe.each(['sandbox', 'live'] as const)('%s observability', (stage) => {
  const b = () => built[stage];
  const alarms = () =>
    Object.values(b().resources)
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .map((r) => r.Properties);
  const alarm = (name: string) => {
    const found = alarms().filter((a) => a.AlarmName === `idpay-${stage}-${name}`);
    expect(found, name).toHaveLength(1);
    const a = found[0]!;
    expect(a.AlarmActions, name).toEqual([{ Ref: b().idOf(b().stage.alarms.topic) }]);
    expect(a.ComparisonOperator, name).toBe('GreaterThanThreshold');
    expect(a.TreatMissingData, name).toBe('notBreaching');
    return a;
  };
  const tableId = () => b().idOf(b().stage.data.table);

  it('alarms on API p99 latency over two 5-minute periods', () => {
    const a = alarm('api-latency-p99');
    expect(a).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Period: 300,
      EvaluationPeriods: 2,
      Threshold: ALARM_THRESHOLDS.apiLatencyP99Ms,
      Dimensions: [{ Name: 'ApiId', Value: { Ref: b().idOf(b().stage.api.api) } }],
    });
  });

  it('alarms on Lambda throttles and concurrency (account-wide metrics)', () => {
    expect(alarm('lambda-throttles')).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Statistic: 'Sum', Threshold: 0 });
    const c = alarm('lambda-concurrency');
    expect(c).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'ConcurrentExecutions', Statistic: 'Maximum', Threshold: 800 });
    expect(c.Dimensions).toBeUndefined();
  });

  it('alarms on table throttles (reads + writes) and system errors of every operation used', () => {
    const t = alarm('table-throttles');
    expect(t.Threshold).toBe(0);
    const metrics = t.Metrics as any[];
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('r + w');
    for (const [id, name] of [
      ['r', 'ReadThrottleEvents'],
      ['w', 'WriteThrottleEvents'],
    ]) {
      expect(metrics.find((m) => m.Id === id)?.MetricStat.Metric).toEqual({
        Namespace: 'AWS/DynamoDB',
        MetricName: name,
        Dimensions: [{ Name: 'TableName', Value: { Ref: tableId() } }],
      });
    }
    const s = alarm('table-system-errors');
    const ops = (s.Metrics as any[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
    for (const m of ops) expect(m).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: 'SystemErrors' });
    expect(ops.map((m) => m.Dimensions.find((d: any) => d.Name === 'Operation').Value).sort()).toEqual([
      'BatchGetItem',
      'BatchWriteItem',
      'DeleteItem',
      'GetItem',
      'PutItem',
      'Query',
      'TransactGetItems',
      'TransactWriteItems',
      'UpdateItem',
    ]);
    expect((s.Metrics as any[]).find((m) => m.Expression)).toBeDefined();
  });

  it('alarms on the age of the oldest message of every work queue, the webhook lanes allowing for a delayed retry (15 min)', () => {
    for (const q of QUEUES) {
      const a = alarm(`${q.name}-oldest-message`);
      const queue = b().stage.queues.byName(q.name).queue;
      expect(a).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [b().idOf(queue), 'QueueName'] } }],
        Threshold: q.name.startsWith('webhooks') ? 1200 : 300,
      });
    }
  });

  it('alarms on the event stream: a failed batch described to its failure queue, its consumer behind the table', () => {
    expect(alarm('event-stream-failures')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [b().idOf(b().stage.queues.streamFailures), 'QueueName'] } }],
      Threshold: 0,
    });
    expect(alarm('event-stream-iterator-age')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: 60_000,
      EvaluationPeriods: 2,
    });
  });

  it('alarms on DLQ depth and API 5xx (kept)', () => {
    for (const q of QUEUES) expect(alarm(`${dlqName(q)}-not-empty`).MetricName).toBe('ApproximateNumberOfMessagesVisible');
    expect(alarm('api-5xx').MetricName).toBe('5xx');
  });

  it('alarms on Scheduler target errors and dropped invocations of the tick group', () => {
    for (const [name, metric] of [
      ['scheduler-target-errors', 'TargetErrorCount'],
      ['scheduler-dropped', 'InvocationDroppedCount'],
    ]) {
      expect(alarm(name!)).toMatchObject({
        Namespace: 'AWS/Scheduler',
        MetricName: metric,
        Statistic: 'Sum',
        Threshold: 0,
        Dimensions: [{ Name: 'ScheduleGroup', Value: `idpay-${stage}` }],
      });
    }
  });

  it('alarms on tick lag, the custom metric the scheduler tick emits', () => {
    expect(alarm('tick-lag')).toMatchObject({
      Namespace: TICK_LAG_METRIC.namespace,
      MetricName: 'TickLagSeconds',
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 2,
      Threshold: 120,
      Dimensions: expect.arrayContaining([
        { Name: 'service', Value: 'idpay' },
        { Name: 'stage', Value: stage },
      ]),
    });
  });

  it('alarms on the discovery limits (DESIGN 10.5): any merchant reaching one in 5 minutes', () => {
    expect(alarm('discovery-limited')).toMatchObject({
      Namespace: TICK_LAG_METRIC.namespace,
      MetricName: 'DiscoveryLimited',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 0,
      Dimensions: expect.arrayContaining([
        { Name: 'service', Value: 'idpay' },
        { Name: 'stage', Value: stage },
      ]),
    });
  });

  it('has one dashboard, idpay-<stage>, showing every service alarm and each area', () => {
    const dashboards = Object.values(b().resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const p = dashboards[0]!.Properties;
    expect(p.DashboardName).toBe(`idpay-${stage}`);
    // The body is a Fn::Join of literal JSON and references: check both.
    const parts = (p.DashboardBody['Fn::Join'][1] as unknown[]).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
    const body = parts.join('');
    for (const title of [
      'alarms',
      'API latency',
      'Lambda errors by function',
      'Lambda throttles and concurrency',
      'Table throttles and system errors',
      'age of oldest message',
      'DLQ depth',
      'Scheduler',
      'Tick lag',
    ]) {
      expect(body, title).toContain(title);
    }
    for (const metric of [
      '"Latency"',
      '"5xx"',
      '"Throttles"',
      '"ConcurrentExecutions"',
      '"SystemErrors"',
      '"ApproximateAgeOfOldestMessage"',
      '"TargetErrorCount"',
      '"TickLagSeconds"',
    ]) {
      expect(body, metric).toContain(metric);
    }
    // The alarm status widget lists every service alarm (the per-function Errors alarms are on the graphs).
    const serviceAlarmIds = b().stage.alarms.serviceAlarms.map((a) => b().idOf(a));
    expect(serviceAlarmIds.length).toBeGreaterThanOrEqual(13);
    for (const id of serviceAlarmIds) expect(body, id).toContain(`{"Fn::GetAtt":["${id}","Arn"]}`);
    expect(
      b()
        .stage.alarms.serviceAlarms.map((a) => a.node.id)
        .sort(),
    ).toEqual(
      expect.arrayContaining([
        'ApiLatencyP99',
        'LambdaThrottles',
        'LambdaConcurrency',
        'TableThrottles',
        'TableSystemErrors',
        'SchedulerTargetErrors',
        'SchedulerDropped',
        'TickLag',
      ]),
    );
  });
});
