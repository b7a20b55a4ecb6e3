import { App, Token, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../functions/config';
import { NOT_FOUND_HANDLER, ROUTES, routeKey, routesFor } from '../../functions/routes';
import { EVENT_STREAM, QUEUES, TABLE, WORKERS, dlqName } from '../../functions/platform/definitions';
import { buildStage, type BuiltStage } from '../support/cdk-stage';
import { queueUrlEnv, readSettings, type StageName } from '../../lib/settings';
import { TICK_INPUT } from '../../lib/workers';

/* ---------- building the stage's stacks (bundling skipped: 1-2 s instead of ~40 s) ---------- */

const OPERATOR_HASH = 'a'.repeat(64);

/** The stage's stacks merged into one view (test/support/cdk-stage.ts). */
interface Built extends BuiltStage {
  resources: Record<string, Res>;
}
interface Res {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
  Metadata?: Record<string, unknown>;
}

function build(stage: StageName): Built {
  return buildStage(stage, { operatorKeyHash: OPERATOR_HASH }) as Built;
}

const built = {} as Record<StageName, Built>;
beforeAll(() => {
  built.sandbox = build('sandbox');
  built.live = build('live');
});

/* ---------- helpers over the synthesized template ---------- */

const ofType = (b: Built, type: string) => Object.entries(b.resources).filter(([, r]) => r.Type === type);
const arr = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The Lambda built from functions/<handler>.ts (its description names the module). */
function functionOf(b: Built, handler: string): [string, Res] {
  const found = ofType(b, 'AWS::Lambda::Function').filter(([, r]) =>
    String(r.Properties.Description).endsWith(`(functions/${handler}.ts)`),
  );
  expect(found, `function for ${handler}`).toHaveLength(1);
  return found[0]!;
}

/** A worker's function (two queue workers may share a handler module: the webhook lanes). */
function functionOfWorker(b: Built, name: string): [string, Res] {
  const found = ofType(b, 'AWS::Lambda::Function').filter(([, r]) =>
    String(r.Properties.Description).includes(`: worker ${name} (functions/`),
  );
  expect(found, `function of worker ${name}`).toHaveLength(1);
  return found[0]!;
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** Every statement that applies to the role of a function (inline and attached policies). */
function statementsOf(b: Built, fnLogicalId: string): Statement[] {
  const role = b.resources[fnLogicalId]!.Properties.Role['Fn::GetAtt'][0] as string;
  const inline = (b.resources[role]!.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
  const attached = ofType(b, 'AWS::IAM::Policy')
    .filter(([, p]) => arr(p.Properties.Roles).some((r: any) => roleIdOf(r) === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
  expect(b.resources[role]!.Properties.ManagedPolicyArns).toBeUndefined();
  return [...inline, ...attached];
}

/**
 * The role a policy's `Roles` entry names: `{Ref: role}` in the role's own stack, or the name
 * taken from the role's ARN when another stack attaches a policy to an imported role.
 */
function roleIdOf(entry: unknown): string | undefined {
  const found = JSON.stringify(entry).match(/"Ref":"([^"]+)"|"Fn::GetAtt":\["([^"]+)","Arn"\]/);
  return found ? (found[1] ?? found[2]) : undefined;
}

/** Active X-Ray tracing (lib/lambda.ts): every function may send its trace segments. */
const TRACING = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

const actionsOf = (statements: Statement[]) => new Set(statements.flatMap((s) => arr(s.Action)));
const withAction = (statements: Statement[], action: string) => statements.filter((s) => arr(s.Action).includes(action));
const resourceIds = (s: Statement) =>
  arr(s.Resource as any).map((r: any) => (r?.['Fn::GetAtt'] ? r['Fn::GetAtt'][0] : (r?.Ref ?? JSON.stringify(r))));

function tableId(b: Built) {
  return b.idOf(b.stage.data.table);
}
function queueIds(b: Built) {
  return {
    work: b.stage.queues.all.map((q) => b.idOf(q.queue)),
    dlq: b.stage.queues.all.map((q) => b.idOf(q.dlq)),
  };
}

/* ---------- tests ---------- */

describe.each(['sandbox', 'live'] as const)('%s stack', (stage) => {
  const b = () => built[stage];

  it('has one API route and one Lambda per route-table entry, plus $default', () => {
    const routes = routesFor(stage);
    const apiRoutes = ofType(b(), 'AWS::ApiGatewayV2::Route');
    expect(apiRoutes).toHaveLength(routes.length + 1);
    const keys = apiRoutes.map(([, r]) => r.Properties.RouteKey as string).sort();
    expect(keys).toEqual([...routes.map(routeKey), '$default'].sort());

    const functions = ofType(b(), 'AWS::Lambda::Function');
    expect(functions).toHaveLength(routes.length + 1 + WORKERS.length);

    // Each route's integration invokes the Lambda built from the route's own handler module.
    for (const [, route] of apiRoutes) {
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      const fnId = b().resources[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
      const key = route.Properties.RouteKey as string;
      const handler = key === '$default' ? NOT_FOUND_HANDLER : routes.find((r) => routeKey(r) === key)!.handler;
      expect(b().resources[fnId]!.Properties.Description, key).toContain(`(functions/${handler}.ts)`);
      expect(route.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    }
  });

  it('runs every function on Node 24 / arm64 from an ESM bundle with source maps', () => {
    for (const [id, fn] of ofType(b(), 'AWS::Lambda::Function')) {
      expect(fn.Properties.Runtime, id).toBe('nodejs24.x');
      expect(fn.Properties.Architectures, id).toEqual(['arm64']);
      expect(fn.Properties.Handler, id).toBe('index.handler');
      // Source maps read by the logger on the first error, not by Node at every cold start (platform/stack-map.ts).
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS, id).toBeUndefined();
      expect(fn.Properties.LoggingConfig?.LogGroup, id).toBeDefined();
      // JSON log format: the runtime's lines as JSON, app lines are JSON already.
      expect(fn.Properties.LoggingConfig, id).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO' });
    }
  });

  it('gives every function the runtime configuration (DESIGN 6.8)', () => {
    const { work, dlq } = queueIds(b());
    const expected: Record<string, unknown> = {
      STAGE: stage,
      TABLE_NAME: { Ref: tableId(b()) },
      APPROVAL_WINDOW_SECONDS: '600',
      // 13, not 6.8's 8: retries must span at least 24 h even at the low end of their jitter (DESIGN 6.6; lib/settings.ts)
      WEBHOOK_MAX_ATTEMPTS: '13',
      WEBHOOK_BACKOFF_BASE_SECONDS: '60',
      RATE_LIMIT_PER_MINUTE: '600',
      LOG_LEVEL: 'INFO',
      OPERATOR_API_KEY_HASH: OPERATOR_HASH,
      APP_SECRETS_ARN: { Ref: b().idOf(b().stage.secrets.secret) },
    };
    QUEUES.forEach((q, i) => {
      expected[queueUrlEnv(q.name)] = { Ref: work[i] };
      expected[queueUrlEnv(dlqName(q))] = { Ref: dlq[i] };
    });
    expect(Object.keys(expected)).toEqual(expect.arrayContaining(['QUEUE_URL_WEBHOOKS', 'QUEUE_URL_WEBHOOKS_DLQ', 'QUEUE_URL_JOBS']));
    for (const [id, fn] of ofType(b(), 'AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables, id).toMatchObject(expected);
      expect(fn.Properties.Environment.Variables.OPERATOR_API_KEY, id).toBeUndefined();
    }
  });

  it('builds the single table from TABLE: keys, on-demand, GSIs with projections, PITR, TTL', () => {
    b().template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    const [, table] = ofType(b(), 'AWS::DynamoDB::Table')[0]!;
    expect(ofType(b(), 'AWS::DynamoDB::Table')).toHaveLength(1);
    const gsis = table.Properties.GlobalSecondaryIndexes as any[];
    // Every index of TABLE, and at least the three of DESIGN 4.
    expect(gsis.map((g) => g.IndexName).sort()).toEqual(TABLE.indexes.map((i) => i.name).sort());
    expect(gsis.map((g) => g.IndexName)).toEqual(expect.arrayContaining(['gsi1', 'gsi2', 'due']));
    expect(gsis.find((g) => g.IndexName === 'due').Projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
    for (const index of TABLE.indexes) {
      expect(gsis.find((g) => g.IndexName === index.name)).toEqual({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      });
    }
  });

  it('gives every queue its own DLQ (maxReceiveCount, visibility), SSL enforced, DLQs kept 14 days', () => {
    const { work, dlq } = queueIds(b());
    // ... and the event stream's failure queue (its mapping's on-failure destination).
    expect(ofType(b(), 'AWS::SQS::Queue')).toHaveLength(QUEUES.length * 2 + 1);
    const failures = b().idOf(b().stage.queues.streamFailures);
    expect(b().resources[failures]!.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(b().resources[failures]!.Properties.RedrivePolicy).toBeUndefined();
    QUEUES.forEach((q, i) => {
      const queue = b().resources[work[i]!]!.Properties;
      expect(queue.VisibilityTimeout).toBe(q.visibilityTimeoutSeconds);
      expect(queue.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [dlq[i], 'Arn'] },
        maxReceiveCount: q.maxReceiveCount,
      });
      expect(b().resources[dlq[i]!]!.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    });
    const policies = ofType(b(), 'AWS::SQS::QueuePolicy');
    for (const id of [...work, ...dlq, failures]) {
      const policy = policies.find(([, p]) => arr(p.Properties.Queues).some((r: any) => r.Ref === id));
      expect(policy, id).toBeDefined();
      expect(policy![1].Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('feeds each queue worker from its queue with partial batch failures', () => {
    const { work } = queueIds(b());
    const mappings = ofType(b(), 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
      work.includes(m.Properties.EventSourceArn['Fn::GetAtt']?.[0]),
    );
    expect(mappings).toHaveLength(QUEUES.length);
    // ... and one more: the event stream.
    expect(ofType(b(), 'AWS::Lambda::EventSourceMapping')).toHaveLength(QUEUES.length + 1);
    QUEUES.forEach((q, i) => {
      const [fnId] = functionOfWorker(b(), q.name);
      const mapping = mappings.find(([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][0] === work[i]);
      expect(mapping, q.name).toBeDefined();
      expect(mapping![1].Properties).toMatchObject({
        FunctionName: { Ref: fnId },
        BatchSize: q.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      if (q.maxConcurrency) expect(mapping![1].Properties.ScalingConfig, q.name).toEqual({ MaximumConcurrency: q.maxConcurrency });
      else expect(mapping![1].Properties.ScalingConfig, q.name).toBeUndefined();
    });
  });

  it('reads the table stream (new images) into the event stream consumer: event inserts only, bisected, retried 10 times, failures to their queue', () => {
    const [, table] = ofType(b(), 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    const [fnId] = functionOfWorker(b(), EVENT_STREAM.name);
    const mapping = ofType(b(), 'AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName?.Ref === fnId);
    expect(mapping).toBeDefined();
    const p = mapping![1].Properties;
    // The table's stream ARN (the table lives in the data stack).
    expect(JSON.stringify(p.EventSourceArn)).toContain('StreamArn');
    expect(p).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: EVENT_STREAM.batchSize,
      MaximumBatchingWindowInSeconds: 0,
      ParallelizationFactor: EVENT_STREAM.parallelizationFactor,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: EVENT_STREAM.maximumRetryAttempts,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(JSON.stringify(p.DestinationConfig.OnFailure.Destination)).toContain(b().idOf(b().stage.queues.streamFailures));
    expect(p.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual(EVENT_STREAM.filters);
  });

  it("updates the webhook lanes' workers before the event stream consumer (its first messages need a worker that makes the record)", () => {
    const [, consumer] = functionOfWorker(b(), EVENT_STREAM.name);
    const lanes = QUEUES.filter((q) => q.name.startsWith('webhooks')).map((q) => functionOfWorker(b(), q.name)[0]);
    expect(lanes).toHaveLength(2);
    for (const id of lanes) expect(consumer.DependsOn ?? []).toContain(id);
  });

  it("updates every other worker after the event stream consumer's mapping (a billing's carried events need its second filter and its code)", () => {
    const [mappingId] = ofType(b(), 'AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.StartingPosition === 'TRIM_HORIZON')!;
    const [consumerId] = functionOfWorker(b(), EVENT_STREAM.name);
    const others = WORKERS.filter(
      (w) => w.name !== EVENT_STREAM.name && !(w.trigger.kind === 'queue' && w.trigger.queue.startsWith('webhooks')),
    );
    expect(others.map((w) => w.name)).toEqual(expect.arrayContaining(['jobs', 'scheduler-tick']));
    for (const w of others) {
      const [id, fn] = functionOfWorker(b(), w.name);
      expect(fn.DependsOn ?? [], id).toContain(mappingId);
    }
    // The mapping itself names the consumer, so CloudFormation updates the consumer's code first.
    expect(JSON.stringify(b().resources[mappingId]!.Properties.FunctionName)).toContain(consumerId);
  });

  it('fair delivery (DESIGN 8.1): both webhook lanes have a maxConcurrency, the slow lane a smaller one, one worker module', () => {
    const mappings = ofType(b(), 'AWS::Lambda::EventSourceMapping');
    const { work } = queueIds(b());
    const conc = (name: string) => {
      const i = QUEUES.findIndex((q) => q.name === name);
      return mappings.find(([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][0] === work[i])![1].Properties.ScalingConfig
        ?.MaximumConcurrency;
    };
    expect(conc('webhooks')).toBe(20);
    expect(conc('webhooks-slow')).toBe(5);
    const lanes = QUEUES.filter((q) => q.name.startsWith('webhooks'));
    expect(lanes.map((q) => q.worker)).toEqual(['workers/webhook-delivery', 'workers/webhook-delivery']);
  });

  it('invokes the scheduler tick every minute with the scheduled time, through a role that can only invoke it', () => {
    const tickWorker = WORKERS.find((w) => w.trigger.kind === 'schedule')!;
    const [tickId] = functionOf(b(), tickWorker.handler);
    const schedules = ofType(b(), 'AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(1);
    const schedule = schedules[0]![1].Properties;
    expect(schedule.ScheduleExpression).toBe('rate(1 minute)');
    expect(schedule.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
    expect(schedule.State).toBe('ENABLED');
    expect(schedule.Name).toBe(`idpay-${stage}-scheduler-tick`);
    expect(schedule.Target.Arn).toEqual({ 'Fn::GetAtt': [tickId, 'Arn'] });
    expect(JSON.parse(schedule.Target.Input)).toEqual({ scheduledTime: '<aws.scheduler.scheduled-time>' });
    expect(schedule.Target.Input).toBe(TICK_INPUT);

    const roleId = schedule.Target.RoleArn['Fn::GetAtt'][0] as string;
    const role = b().resources[roleId]!.Properties;
    expect(role.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'scheduler.amazonaws.com' });
    const statements = ofType(b(), 'AWS::IAM::Policy')
      .filter(([, p]) => arr(p.Properties.Roles).some((r: any) => roleIdOf(r) === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
    expect(statements).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [tickId, 'Arn'] } }]);
  });

  it("alarms on every DLQ, on every function's errors and on API 5xx", () => {
    const alarms = ofType(b(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const topicId = b().idOf(b().stage.alarms.topic);
    for (const a of alarms) expect(a.AlarmActions).toEqual([{ Ref: topicId }]);

    for (const dlqId of queueIds(b()).dlq) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
        }),
      );
    }
    for (const [fnId] of ofType(b(), 'AWS::Lambda::Function')) {
      expect(alarms, fnId).toContainEqual(
        expect.objectContaining({
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId } }],
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
        }),
      );
    }
    const [apiId] = ofType(b(), 'AWS::ApiGatewayV2::Api')[0]!;
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/ApiGateway',
        MetricName: '5xx',
        Dimensions: [{ Name: 'ApiId', Value: { Ref: apiId } }],
        Threshold: 0,
      }),
    );
  });

  it('logs API access on the $default stage', () => {
    b().template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiAccessLogs'), 'Arn'] },
        Format: Match.stringLikeRegexp('\\$context\\.requestId'),
      },
    });
  });

  it('exports the outputs ops and tests need, under stable names', () => {
    const outputs = b().template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'TableName',
        'QueueUrlWebhooks',
        'DlqUrlWebhooks',
        'QueueUrlJobs',
        'DlqUrlJobs',
        'TickScheduleName',
        'TickScheduleGroup',
      ]),
    );
    expect(outputs.TickScheduleName!.Value).toBe(`idpay-${stage}-scheduler-tick`);
    expect(outputs.TickScheduleGroup!.Value).toBe(`idpay-${stage}`);
    expect(outputs.TableName!.Value).toEqual({ Ref: tableId(b()) });
  });

  it('is environment-agnostic, but for the WAF stack pinned to us-east-1 (CloudFront web ACLs live there)', () => {
    for (const s of b().stage.stacks) {
      expect(Token.isUnresolved(s.account), s.stackName).toBe(true);
      if (s === b().stage.firewallStack) expect(s.region, s.stackName).toBe('us-east-1');
      else expect(Token.isUnresolved(s.region), s.stackName).toBe(true);
    }
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged findings, in every stack', () => {
    for (const s of b().stage.stacks) {
      const report = new AwsSolutionsChecks().validateScope(s);
      const findings = report.violations.map(
        (v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      );
      expect(findings, s.stackName).toEqual([]);
      expect(report.success, s.stackName).toBe(true);
    }
  });
});

describe('sandbox-only routes', () => {
  it('exist in sandbox and are absent in live', () => {
    const sandboxOnly = ROUTES.filter((r) => r.sandboxOnly);
    expect(sandboxOnly.length).toBeGreaterThan(0);
    const keysOf = (b: Built) => ofType(b, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    for (const r of sandboxOnly) {
      expect(keysOf(built.sandbox)).toContain(routeKey(r));
      expect(keysOf(built.live)).not.toContain(routeKey(r));
      expect(() => functionOf(built.live, r.handler)).toThrow();
    }
  });
});

describe('data retention per stage', () => {
  it('live retains the table (deletion protection, Retain) and the secret', () => {
    const [, table] = ofType(built.live, 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    const [, secret] = ofType(built.live, 'AWS::SecretsManager::Secret')[0]!;
    expect(secret.DeletionPolicy).toBe('Retain');
  });

  it('sandbox may be torn down', () => {
    const [, table] = ofType(built.sandbox, 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    expect(table.DeletionPolicy).toBe('Delete');
  });
});

describe('least privilege (sandbox)', () => {
  const b = () => built.sandbox;
  const FORBIDDEN_FOR_READ = [
    'dynamodb:PutItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:TransactWriteItems',
    'dynamodb:Scan',
    'dynamodb:*',
  ];

  it("a read route (GET /v1/recurring) only reads, and updates nothing but API-key and membership items (the caller's rate window)", () => {
    const route = ROUTES.find((r) => routeKey(r) === 'GET /v1/recurring')!;
    expect(route.access).toBe('read');
    const [fnId] = functionOf(b(), route.handler);
    const statements = statementsOf(b(), fnId);
    const actions = actionsOf(statements);
    for (const a of FORBIDDEN_FOR_READ) expect(actions.has(a), a).toBe(false);
    expect([...actions].filter((a) => a.startsWith('sqs:'))).toEqual([]);
    expect([...actions].filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
    expect(actions).toEqual(
      new Set([
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        ...TRACING,
      ]),
    );
    const updates = withAction(statements, 'dynamodb:UpdateItem');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*', 'USER#*'] } });
    expect(arr(updates[0]!.Action)).toEqual(['dynamodb:UpdateItem']);
    // Reads cover the table and its indexes, nothing else.
    const reads = withAction(statements, 'dynamodb:Query');
    expect(reads.flatMap(resourceIds)).toEqual([tableId(b()), expect.stringContaining(`${tableId(b())}`)]);
  });

  it('a POST route that only reads may write its idempotency records and nothing else', () => {
    const route = ROUTES.find((r) => routeKey(r) === 'POST /v1/provider/merchant/trust/validate')!;
    expect(route.access).toBe('read');
    const statements = statementsOf(b(), functionOf(b(), route.handler)[0]);
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem']) {
      for (const s of withAction(statements, action)) {
        expect(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'], action).toBeDefined();
      }
    }
    const idem = withAction(statements, 'dynamodb:PutItem');
    expect(idem).toHaveLength(1);
    expect(idem[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['IDEM#*'] } });
    expect([...actionsOf(statements)].filter((a) => a.startsWith('sqs:') || a.startsWith('secretsmanager:'))).toEqual([]);
  });

  it('a write route (POST /v1/customer/bill) reads and writes the table, sends to work queues but not DLQs', () => {
    const route = ROUTES.find((r) => routeKey(r) === 'POST /v1/customer/bill')!;
    expect(route.access).toBe('write');
    const statements = statementsOf(b(), functionOf(b(), route.handler)[0]);
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:Query']) {
      const s = withAction(statements, action).filter((st) => !st.Condition);
      expect(s.flatMap(resourceIds), action).toContain(tableId(b()));
    }
    const { work, dlq } = queueIds(b());
    const sendTargets = withAction(statements, 'sqs:SendMessage').flatMap(resourceIds);
    expect(sendTargets.sort()).toEqual([...work].sort());
    for (const d of dlq) expect(statements.flatMap(resourceIds)).not.toContain(d);
    expect(actionsOf(statements).has('secretsmanager:GetSecretValue')).toBe(true);
    expect(actionsOf(statements).has('dynamodb:Scan')).toBe(false);
  });

  it("only the operator's trial balance may Scan, and only the table (not its indexes); it writes nothing but its rate window", () => {
    const scanning = routesFor('sandbox').filter((r) => actionsOf(statementsOf(b(), functionOf(b(), r.handler)[0])).has('dynamodb:Scan'));
    expect(scanning.map(routeKey)).toEqual(['GET /v1/operator/ledger/trial-balance']);
    const statements = statementsOf(b(), functionOf(b(), scanning[0]!.handler)[0]);
    const scans = withAction(statements, 'dynamodb:Scan');
    expect(scans).toHaveLength(1);
    expect(scans.flatMap(resourceIds)).toEqual([tableId(b())]);
    expect(arr(scans[0]!.Action)).toEqual(['dynamodb:Scan']);
    for (const a of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'])
      expect(actionsOf(statements).has(a), a).toBe(false);
  });

  it('public routes (docs) and $default get no table, queue or secret access', () => {
    for (const handler of [...ROUTES.filter((r) => r.kinds.length === 0).map((r) => r.handler), NOT_FOUND_HANDLER]) {
      const actions = actionsOf(statementsOf(b(), functionOf(b(), handler)[0]));
      expect([...actions].sort(), handler).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', ...TRACING].sort());
    }
  });

  it('secrets are readable only by write routes and workers', () => {
    for (const route of routesFor('sandbox')) {
      const actions = actionsOf(statementsOf(b(), functionOf(b(), route.handler)[0]));
      const needs = route.access === 'write' && route.kinds.length > 0;
      expect(actions.has('secretsmanager:GetSecretValue'), routeKey(route)).toBe(needs);
    }
    // Every worker but the event stream consumer (it signs nothing and opens no sealed value).
    for (const w of WORKERS) {
      expect(actionsOf(statementsOf(b(), functionOfWorker(b(), w.name)[0])).has('secretsmanager:GetSecretValue'), w.name).toBe(
        w.trigger.kind !== 'stream',
      );
    }
  });

  it('the event stream consumer reads the stream and the table, writes only event items, delivery records and receipts, sends only to the webhooks queue and its failure queue', () => {
    const statements = statementsOf(b(), functionOfWorker(b(), EVENT_STREAM.name)[0]);
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem']) {
      const s = withAction(statements, action);
      expect(s, action).toHaveLength(1);
      expect(s[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EVT#*', 'WHDL#*', 'EVR#*'] } });
    }
    for (const a of ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Scan', 'secretsmanager:GetSecretValue'])
      expect(actionsOf(statements).has(a), a).toBe(false);
    for (const a of ['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream']) {
      expect(JSON.stringify(withAction(statements, a).flatMap((x) => arr(x.Resource as any))), a).toContain('StreamArn');
    }
    const { work } = queueIds(b());
    const i = QUEUES.findIndex((q) => q.name === 'webhooks');
    expect(withAction(statements, 'sqs:SendMessage').flatMap(resourceIds).sort()).toEqual(
      [work[i], b().idOf(b().stage.queues.streamFailures)].sort(),
    );
  });

  it('workers: the tick fans out to every work queue; the webhook lanes send only to their DLQs, the slow lane and their own queue', () => {
    const { work, dlq } = queueIds(b());
    const tick = WORKERS.find((w) => w.trigger.kind === 'schedule')!;
    const tickStatements = statementsOf(b(), functionOf(b(), tick.handler)[0]);
    expect(withAction(tickStatements, 'sqs:SendMessage').flatMap(resourceIds).sort()).toEqual([...work].sort());
    expect(actionsOf(tickStatements).has('dynamodb:PutItem')).toBe(true);

    const i = QUEUES.findIndex((q) => q.name === 'webhooks');
    const j = QUEUES.findIndex((q) => q.name === 'webhooks-slow');
    const webhook = statementsOf(b(), functionOfWorker(b(), 'webhooks')[0]);
    // its DLQ, the slow lane it hands slow endpoints to, and itself (a retry is a new delayed message)
    expect(withAction(webhook, 'sqs:SendMessage').flatMap(resourceIds).sort()).toEqual([dlq[i], work[j], work[i]].sort());
    expect(withAction(webhook, 'sqs:ChangeMessageVisibility').flatMap(resourceIds)).toContain(work[i]);
    expect(withAction(webhook, 'sqs:ReceiveMessage').flatMap(resourceIds)).toEqual([work[i]]);
    const slow = statementsOf(b(), functionOfWorker(b(), 'webhooks-slow')[0]);
    // its own DLQ (SQS redrive), the webhook DLQ the worker moves exhausted deliveries to, and itself (retries)
    expect(withAction(slow, 'sqs:SendMessage').flatMap(resourceIds).sort()).toEqual([dlq[j], dlq[i], work[j]].sort());
    expect(withAction(slow, 'sqs:ChangeMessageVisibility').flatMap(resourceIds)).toContain(work[j]);
    expect(withAction(slow, 'sqs:ReceiveMessage').flatMap(resourceIds)).toEqual([work[j]]);
  });

  it('no role has a wildcard action', () => {
    const actions = ofType(b(), 'AWS::IAM::Policy').flatMap(([, p]) =>
      (p.Properties.PolicyDocument.Statement as Statement[]).flatMap((s) => arr(s.Action)),
    );
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });
});

describe('cdk-nag acknowledgments', () => {
  it('every acknowledged finding carries a written reason', () => {
    const acks: [string, string][] = [];
    for (const c of built.sandbox.app.node.findAll()) {
      for (const m of c.node.metadata) {
        if (m.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(m.data as Record<string, string>)) acks.push([id, reason]);
      }
    }
    expect(acks.length).toBeGreaterThan(0);
    for (const [id, reason] of acks) expect(reason.trim().length, id).toBeGreaterThan(40);
  });
});

describe('settings', () => {
  const appWith = (context: Record<string, unknown>) => new App({ context });

  it('defaults to the sandbox stage without an operator key hash', () => {
    expect(readSettings(appWith({}))).toEqual({ stage: 'sandbox', operatorKeyHash: '', alarmEmail: undefined, runtime: {} });
  });

  it('reads stage and operator key hash from context and rejects bad values', () => {
    expect(readSettings(appWith({ stage: 'live', operatorKeyHash: OPERATOR_HASH })).stage).toBe('live');
    expect(() => readSettings(appWith({ stage: 'prod' }))).toThrow(/stage/);
    expect(() => readSettings(appWith({ operatorKeyHash: 'sk_live_plainkey' }))).toThrow(/operatorKeyHash/);
  });

  it('takes every runtime setting at deploy time (-c NAME=value) and refuses bad values', () => {
    const given = {
      APPROVAL_WINDOW_SECONDS: '5',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_BACKOFF_BASE_SECONDS: '1',
      RATE_LIMIT_PER_MINUTE: '50',
      RATE_LIMITS: '{"billing":20}',
      LOG_LEVEL: 'WARN',
      PRE_DEBIT_NOTICE_SECONDS: '0',
      DISPUTE_RESPONSE_SECONDS: '60',
      SANDBOX_BANK_DELAY_SECONDS: '1',
      TEST_CLOCK_BANK_WAIT_SECONDS: '2',
    };
    const settings = readSettings(appWith(given));
    expect(settings.runtime).toEqual(given);
    const built = buildStage('sandbox', { operatorKeyHash: OPERATOR_HASH, runtime: settings.runtime });
    const fns = Object.entries(built.resources).filter(
      ([, r]) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Runtime).startsWith('nodejs'),
    );
    expect(fns.length).toBeGreaterThan(50);
    for (const [id, fn] of fns) expect(fn.Properties.Environment.Variables, id).toMatchObject(given);
    expect(() => readSettings(appWith({ APPROVAL_WINDOW_SECONDS: 'soon' }))).toThrow(
      /APPROVAL_WINDOW_SECONDS must be a whole number of seconds/,
    );
    expect(() => readSettings(appWith({ WEBHOOK_MAX_ATTEMPTS: '0' }))).toThrow(/WEBHOOK_MAX_ATTEMPTS must be a whole number above 0/);
    expect(() => readSettings(appWith({ RATE_LIMITS: '{"billing":-1}' }))).toThrow(/RATE_LIMITS must be a JSON object/);
    expect(() => readSettings(appWith({ LOG_LEVEL: 'LOUD' }))).toThrow(/LOG_LEVEL must be one of/);
  });

  it('names queue URL variables the way functions/config.ts reads them', () => {
    for (const name of QUEUES.flatMap((q) => [q.name, dlqName(q)])) {
      const env = queueUrlEnv(name);
      const before = process.env[env];
      process.env[env] = `https://sqs.example/${name}`;
      try {
        expect(config.queueUrl(name)).toBe(`https://sqs.example/${name}`);
      } finally {
        if (before === undefined) delete process.env[env];
        else process.env[env] = before;
      }
    }
    expect(queueUrlEnv('webhooks-dlq')).toBe('QUEUE_URL_WEBHOOKS_DLQ');
  });
});
