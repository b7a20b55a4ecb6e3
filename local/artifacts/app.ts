/**
 * Artifacts mode (`npm start -- --artifacts`, LOCAL_ARTIFACTS=1): the local stack runs what
 * deploys. The stage's cloud assembly (assembly.ts) gives the functions' built bundles,
 * their environment, their roles' policies, the table, queues and secrets, and the
 * triggers; each function runs isolated in worker threads of its own (functions.ts) and
 * every AWS call it makes passes the IAM check of its role (gateway.ts, iam.ts).
 *
 * The environment a function gets is the template's `Environment.Variables`, resolved
 * (template.ts lists the substitution rules), plus what the Lambda runtime itself sets
 * (AWS_REGION, AWS_LAMBDA_FUNCTION_NAME/_MEMORY_SIZE/_VERSION, AWS_EXECUTION_ENV, LAMBDA_TASK_ROOT,
 * the role's credentials), plus the local endpoints (AWS_ENDPOINT_URL*, all the IAM gateway).
 * The caller's configuration (AppOptions.env) is applied as follows:
 * - STAGE chooses the assembly (cdk.out.sandbox or cdk.out.live); it is not an override.
 * - OPERATOR_API_KEY becomes OPERATOR_API_KEY_HASH (its SHA-256), the only form a deployed
 *   stack holds (the template has '' unless synthesized with -c operatorKeyHash).
 * - APP_SECRETS becomes the value of the template's secret(s) in the local Secrets Manager;
 *   functions read it through APP_SECRETS_ARN as on AWS.
 * - Anything else (LOG_LEVEL, the tests' knobs such as WEBHOOK_MAX_ATTEMPTS) overrides the
 *   template's variable of that name and is listed in `LocalApp.env.LOCAL_ARTIFACTS_OVERRIDES`.
 * Not set: AWS_LAMBDA_RUNTIME_API (webhook delivery refuses loopback receivers on Lambda,
 * and local receivers are loopback), NODE_OPTIONS and TZ (per process, not per thread: the
 * source maps and time zone of the local process apply).
 */
import { runtimeSettingsFrom } from '../../lib/settings';
import { createHash, randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ensureBucket, ensureStream } from '../resources';
import { startStreamPoller, type StreamPoller } from '../streams';
import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';
import type { Server } from 'node:http';
import { matchRoute } from '../../functions/routes';
import {
  SETTLE_TIMEOUT_MS,
  startTickTimer,
  stopRuntime,
  streamCheckpoints,
  streamPollerWanted,
  visibleMessages,
  waitQuiet,
  wakeOnLocalWrites,
  type AppOptions,
  type LocalApp,
  type TickResult,
} from '../runtime';
import { startPollers, type EventSource } from '../pollers';
import { startHttpServer, type Router } from '../server';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../services';
import { ensureAssembly, type StageName } from './assembly';
import { FunctionPool } from './functions';
import { startGateway } from './gateway';
import { IamPrincipal, type Authorization } from './iam';
import { readModel, LOCAL_ACCOUNT, type AppModel, type FunctionSpec } from './template';

/** Configuration the local runtime maps instead of overriding (see the header). */
const MAPPED = new Set(['STAGE', 'OPERATOR_API_KEY', 'APP_SECRETS']);

export interface ArtifactsApp extends LocalApp {
  model: AppModel;
  /** The AWS endpoint the functions call (the IAM gateway). */
  awsEndpoint: string;
  /** Every call the IAM check refused. */
  denials: { principal: string; action: string; resource: string }[];
  pools: Map<string, FunctionPool>;
}

/** Template secret value: APP_SECRETS if given, otherwise one generated as GenerateSecretString says. */
function secretValue(properties: any, appSecrets: string | undefined): string {
  if (appSecrets) return appSecrets;
  if (typeof properties.SecretString === 'string') return properties.SecretString;
  const g = properties.GenerateSecretString ?? {};
  const alphabet = g.ExcludePunctuation
    ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
    : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&*+-.:;<=>?@^_~';
  const bytes = randomBytes(Number(g.PasswordLength ?? 32));
  const password = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
  if (g.GenerateStringKey) return JSON.stringify({ ...JSON.parse(g.SecretStringTemplate ?? '{}'), [g.GenerateStringKey]: password });
  return password;
}

async function createTables(ddb: DynamoDBClient, model: AppModel) {
  for (const t of model.tables) {
    const p = t.properties;
    try {
      await ddb.send(new DescribeTableCommand({ TableName: t.name }));
      if (p.StreamSpecification?.StreamViewType)
        await ensureStream(ddb, t.name, { StreamEnabled: true, StreamViewType: p.StreamSpecification.StreamViewType });
      continue;
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException) && (e as Error).name !== 'ResourceNotFoundException') throw e;
    }
    await ddb.send(
      new CreateTableCommand({
        TableName: t.name,
        BillingMode: p.BillingMode ?? 'PROVISIONED',
        AttributeDefinitions: p.AttributeDefinitions,
        KeySchema: p.KeySchema,
        GlobalSecondaryIndexes: p.GlobalSecondaryIndexes?.map((i: any) => ({
          IndexName: i.IndexName,
          KeySchema: i.KeySchema,
          Projection: i.Projection,
        })),
        LocalSecondaryIndexes: p.LocalSecondaryIndexes,
        ...(p.StreamSpecification?.StreamViewType
          ? { StreamSpecification: { StreamEnabled: true, StreamViewType: p.StreamSpecification.StreamViewType } }
          : {}),
        ...(p.BillingMode === 'PAY_PER_REQUEST'
          ? {}
          : { ProvisionedThroughput: p.ProvisionedThroughput ?? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }),
      }),
    );
    if (p.TimeToLiveSpecification?.Enabled) {
      await ddb.send(new UpdateTimeToLiveCommand({ TableName: t.name, TimeToLiveSpecification: p.TimeToLiveSpecification }));
    }
  }
}

const QUEUE_ATTRIBUTES = [
  'VisibilityTimeout',
  'MessageRetentionPeriod',
  'DelaySeconds',
  'ReceiveMessageWaitTimeSeconds',
  'MaximumMessageSize',
];

/** Creates (or finds) each queue of the model; its URL by queue name, as the emulator gives it. */
async function createQueues(sqs: SQSClient, model: AppModel): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  for (const q of model.queues) {
    const Attributes: Record<string, string> = {};
    for (const a of QUEUE_ATTRIBUTES) if (q.properties[a] !== undefined) Attributes[a] = String(q.properties[a]);
    const out = await sqs.send(new CreateQueueCommand({ QueueName: q.name, Attributes }));
    urls.set(q.name, out.QueueUrl!);
  }
  return urls;
}

/** Redrive once every queue exists (a DLQ is referenced by ARN). */
async function redriveQueues(sqs: SQSClient, model: AppModel): Promise<void> {
  for (const q of model.queues) {
    const r = q.properties.RedrivePolicy;
    if (!r) continue;
    await sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: q.url, Attributes: { RedrivePolicy: typeof r === 'string' ? r : JSON.stringify(r) } }),
    );
  }
}

/** A deterministic access key per function: the gateway knows the caller by it. */
export const accessKeyOf = (fn: Pick<FunctionSpec, 'id'>) =>
  `ASIA${createHash('sha256').update(fn.id).digest('hex').slice(0, 16).toUpperCase()}`;

export async function startArtifactsApp(opts: AppOptions, assembly?: { dir: string }): Promise<ArtifactsApp> {
  const overridesIn = { ...opts.env };
  const stage = (overridesIn.STAGE ?? 'sandbox') as StageName;
  if (stage !== 'sandbox' && stage !== 'live') throw new Error(`STAGE must be sandbox or live (got ${stage})`);
  const { dir } =
    assembly ??
    (await ensureAssembly(
      stage,
      (s) => console.log(s),
      runtimeSettingsFrom((name) => overridesIn[name]),
    ));

  const ddb = new DynamoDBClient({ endpoint: opts.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const sqs = new SQSClient({
    endpoint: opts.sqsEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    useQueueUrlAsEndpoint: false,
  });
  // Template Refs to queues resolve to the URLs the emulator gives. A queue kept from an earlier
  // run (.local/ data) keeps the URL it was created with, naming that run's emulator port, so
  // each queue is created (or found) first and the model is read with the URLs it answered.
  const naming = { region: LOCAL_REGION, tableName: opts.tableName, queuePrefix: opts.queuePrefix };
  const urls = await createQueues(sqs, readModel(dir, { ...naming, queueUrl: (name) => name }));
  const model = readModel(dir, { ...naming, queueUrl: (name) => urls.get(name)! });
  await createTables(ddb, model);
  await redriveQueues(sqs, model);
  for (const bucket of model.buckets) await ensureBucket(opts.sqsEndpoint, LOCAL_REGION, LOCAL_CREDENTIALS, bucket);

  const secrets = new Map(model.secrets.map((s) => [s.arn, secretValue(s.properties, overridesIn.APP_SECRETS)]));
  const principals = new Map<string, IamPrincipal>();
  const principalOf = new Map<string, IamPrincipal>();
  for (const fn of model.functions) {
    const roleName = model.assembly.physicalOf(fn.roleId).ref;
    const p = new IamPrincipal(
      `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${roleName}/${fn.name}`,
      model.policiesByRole.get(fn.roleId) ?? [],
    );
    principals.set(accessKeyOf(fn), p);
    principalOf.set(fn.id, p);
  }
  const denials: ArtifactsApp['denials'] = [];
  let stream: StreamPoller | undefined;
  const gateway = await startGateway({
    onWrite: () => stream?.noteWrite(),
    region: LOCAL_REGION,
    dynamoEndpoint: opts.dynamoEndpoint,
    sqsEndpoint: opts.sqsEndpoint,
    s3Endpoint: opts.sqsEndpoint,
    principals,
    secrets,
    tables: (nameOrArn) => {
      const t = model.tables.find((x) => x.name === nameOrArn || x.arn === nameOrArn);
      if (!t) throw new Error(`Requested resource not found: Table: ${nameOrArn} not found`);
      return t;
    },
    onDenied: (d) => {
      denials.push(d);
      if (process.env.LOCAL_ARTIFACTS_QUIET !== '1') console.error(`artifacts: AccessDenied ${d.principal} ${d.action} ${d.resource}`);
    },
  });

  const overrides = Object.fromEntries(Object.entries(overridesIn).filter(([k]) => !MAPPED.has(k)));
  const operatorKey = overridesIn.OPERATOR_API_KEY;
  const pools = new Map<string, FunctionPool>();
  for (const fn of model.functions) {
    const env: Record<string, string> = { ...fn.environment };
    if (operatorKey && 'OPERATOR_API_KEY_HASH' in env) env.OPERATOR_API_KEY_HASH = createHash('sha256').update(operatorKey).digest('hex');
    Object.assign(env, overrides, {
      AWS_REGION: LOCAL_REGION,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: fn.codeDir,
      AWS_ACCESS_KEY_ID: accessKeyOf(fn),
      AWS_SECRET_ACCESS_KEY: 'local-artifacts',
      AWS_SESSION_TOKEN: 'local-artifacts',
      AWS_ENDPOINT_URL: gateway.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: gateway.endpoint,
      AWS_ENDPOINT_URL_SQS: gateway.endpoint,
      AWS_ENDPOINT_URL_S3: gateway.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: gateway.endpoint,
    });
    if (process.env.PATH) env.PATH = process.env.PATH;
    pools.set(fn.id, new FunctionPool(fn, env));
  }
  const pool = (id: string) => {
    const p = pools.get(id);
    if (!p) throw new Error(`No function ${id}`);
    return p;
  };

  // HTTP API: the template's routes, matched as API Gateway matches them.
  const routes = model.routes.map((r) => ({ method: r.method as 'GET', path: r.path, fn: r.functionId, key: r.routeKey }));
  const anyRoutes = routes.filter((r) => (r.method as string) === 'ANY');
  const router: Router = (method, path) => {
    const m =
      matchRoute(routes, method, path) ??
      matchRoute(
        anyRoutes.map((r) => ({ ...r, method: method as 'GET' })),
        method,
        path,
      );
    return m ? { routeKey: m.route.key, params: m.params, target: m.route.fn } : undefined;
  };
  const server: Server = await startHttpServer({
    port: opts.port,
    host: opts.host,
    stage: () => stage,
    router,
    defaultTarget: model.defaultRoute ?? '',
    invoke: async (target: string, event: APIGatewayProxyEventV2) => {
      if (!target)
        return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Not Found' }) };
      return pool(target).invoke(event);
    },
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;

  // SQS event sources: as Lambda does when a mapping is created, the role must be able to consume.
  const sources: EventSource[] = [];
  for (const es of model.eventSources.filter((e) => e.enabled && e.queueId)) {
    const q = model.queues.find((x) => x.id === es.queueId)!;
    const fn = model.functions.find((f) => f.id === es.functionId)!;
    const needs: Authorization[] = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].map((action) => ({
      action,
      resource: q.arn,
    }));
    const d = await principalOf.get(fn.id)!.check(needs);
    if (!d.allowed) {
      throw new Error(
        `Event source ${q.name} -> ${fn.name}: the execution role does not have permissions to call ${d.action.split(':')[1]} on SQS`,
      );
    }
    sources.push({
      url: q.url,
      arn: q.arn,
      batchSize: es.batchSize,
      maxConcurrency: es.maxConcurrency,
      invoke: (event: SQSEvent) => pool(fn.id).invoke(event),
    });
  }
  const pollers = startPollers(sqs, {}, Number(process.env.LOCAL_POLLER_CONCURRENCY ?? 4), sources);

  // Table stream event sources: as Lambda does when such a mapping is created, the role must
  // be able to read the stream, and to send to its on-failure destination.
  const streamPollers: StreamPoller[] = [];
  for (const es of model.eventSources.filter((e) => e.enabled && e.stream)) {
    const t = model.tables.find((x) => x.id === es.tableId)!;
    const fn = model.functions.find((f) => f.id === es.functionId)!;
    const st = es.stream!;
    const failureQueue = st.onFailure ? model.queues.find((q) => q.arn === st.onFailure) : undefined;
    if (st.onFailure && !failureQueue)
      throw new Error(`Event source ${t.name} -> ${fn.name}: on-failure destination ${st.onFailure} is not a queue of the assembly`);
    const needs: Authorization[] = [
      ...['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].map((action) => ({ action, resource: st.arn })),
      { action: 'dynamodb:ListStreams', resource: '*' },
      ...(failureQueue ? [{ action: 'sqs:SendMessage', resource: failureQueue.arn }] : []),
    ];
    const d = await principalOf.get(fn.id)!.check(needs);
    if (!d.allowed) {
      throw new Error(
        `Event source ${t.name} stream -> ${fn.name}: the execution role does not have permissions to call ${d.action.split(':')[1]} on ${d.action.split(':')[0] === 'sqs' ? 'SQS' : 'DynamoDB'}`,
      );
    }
    if (!streamPollerWanted()) continue;
    streamPollers.push(
      startStreamPoller(
        ddb,
        sqs,
        {
          tableName: t.name,
          eventSourceArn: st.arn,
          batchSize: es.batchSize,
          parallelizationFactor: st.parallelizationFactor,
          maximumRetryAttempts: st.maximumRetryAttempts,
          bisectBatchOnError: st.bisectBatchOnError,
          startingPosition: st.startingPosition,
          filters: st.filters,
          onFailureUrl: failureQueue?.url,
          functionArn: fn.arn,
          invoke: (event) => pool(fn.id).invoke(event),
        },
        {
          endpoint: opts.dynamoEndpoint,
          region: LOCAL_REGION,
          credentials: LOCAL_CREDENTIALS,
          checkpoints: streamCheckpoints(opts.streamCheckpointFile),
        },
      ),
    );
  }
  if (streamPollers.length > 1) throw new Error('artifacts mode runs one table stream event source (the event stream)');
  const eventStream = streamPollers[0];
  stream = eventStream;

  // The Scheduler schedule: its target function, its input with the scheduled time, its role.
  const schedule = model.schedules.find((s) => s.enabled);
  const scheduler =
    schedule?.roleId &&
    new IamPrincipal(
      `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${model.assembly.physicalOf(schedule.roleId).ref}/scheduler`,
      model.policiesByRole.get(schedule.roleId) ?? [],
    );
  const tick = async (at = new Date()): Promise<TickResult> => {
    if (!schedule) throw new Error('The assembly has no enabled Scheduler schedule');
    const fn = model.functions.find((f) => f.id === schedule.functionId)!;
    if (scheduler) {
      const d = await scheduler.check([{ action: 'lambda:InvokeFunction', resource: fn.arn }]);
      if (!d.allowed) throw new Error(`Scheduler target error: ${schedule.name} may not invoke ${fn.name} (${d.action} denied)`);
    }
    const input = JSON.parse(schedule.input.replaceAll('<aws.scheduler.scheduled-time>', at.toISOString()));
    return (await pool(fn.id).invoke(input)) as TickResult;
  };
  // The time path (schedule target, queue consumers) is warm from the start, as its pollers
  // are: the first tick or message does not pay a bundle load on a loaded machine.
  const timePath = new Set([
    ...model.eventSources.filter((e) => e.enabled).map((e) => e.functionId),
    ...(schedule ? [schedule.functionId] : []),
  ]);
  await Promise.all([...timePath].map((id) => pool(id).warm()));
  const timer = startTickTimer(tick, opts);

  // What the harness and the ops CLI use: the admin endpoints and the resolved names.
  const anyFn = model.functions[0]?.environment ?? {};
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: opts.dynamoEndpoint,
    AWS_ENDPOINT_URL_SQS: opts.sqsEndpoint,
    ...Object.fromEntries(Object.entries(anyFn).filter(([k]) => k === 'TABLE_NAME' || k.startsWith('QUEUE_URL_'))),
    ...overridesIn,
    LOCAL_ARTIFACTS: '1',
    LOCAL_ARTIFACTS_ASSEMBLY: dir,
    LOCAL_ARTIFACTS_OVERRIDES: Object.keys(overrides).sort().join(','),
  };
  Object.assign(process.env, env);
  // This process's own writes (the tests') wake the poller too; the bundles' come through the gateway.
  const unwake = wakeOnLocalWrites(() => stream);

  const dlqArns = new Set(
    model.queues
      .map((q) => q.properties.RedrivePolicy)
      .filter(Boolean)
      .map((r) => (typeof r === 'string' ? JSON.parse(r) : r).deadLetterTargetArn as string),
  );
  // Destinations (the stream's failure queue) are no work queue either.
  const destinations = new Set(model.eventSources.flatMap((e) => (e.stream?.onFailure ? [e.stream.onFailure] : [])));
  const workQueues = model.queues.filter((q) => !dlqArns.has(q.arn) && !destinations.has(q.arn)).map((q) => q.url);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    env,
    model,
    awsEndpoint: gateway.endpoint,
    denials,
    pools,
    tick,
    updateEnvironment: async (vars) => {
      for (const p of pools.values()) p.updateEnvironment(vars);
    },
    settle: (timeoutMs = SETTLE_TIMEOUT_MS) => waitQuiet(pollers.busy, () => visibleMessages(sqs, workQueues), timeoutMs, eventStream),
    eventStream,
    processing: pollers.processing,
    mailDir: overridesIn.MAIL_DIR ?? '',
    stop: () =>
      stopRuntime({ timer, pollers, stream: eventStream, server, clients: [ddb, sqs] }, async () => {
        await Promise.allSettled([...pools.values()].map((p) => p.stop()));
        await gateway.stop();
        unwake();
      }),
  };
}
