import { Aws, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { EVENT_STREAM, WORKERS, type WorkerDefinition } from '../functions/platform/definitions';
import type { AccessRoles } from './access';
import type { WorkQueues } from './data';
import { appFunction, roleFor, seconds } from './lambda';
import { pascal, type StageName } from './settings';

export interface WorkersProps {
  stage: StageName;
  roles: AccessRoles;
  queues: WorkQueues;
  /** The table whose stream the event stream consumer reads. */
  table: dynamodb.ITable;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

export interface WorkerFunction {
  worker: WorkerDefinition;
  fn: LambdaFunction;
}

/** Input the scheduler sends to the tick: the schedule's own time, not the invocation time. */
export const TICK_INPUT = JSON.stringify({ scheduledTime: '<aws.scheduler.scheduled-time>' });

/**
 * The workers of `WORKERS` (functions/platform/definitions.ts): SQS consumers with partial batch
 * failures, the event stream consumer on the table's DynamoDB Stream (EVENT_STREAM: filtered
 * to inserted event items, bisect on error, bounded retries, failures described to the
 * stream's failure queue), and the scheduler tick driven by an EventBridge Scheduler schedule.
 */
export class Workers extends Construct {
  readonly functions: WorkerFunction[] = [];
  readonly tickScheduleName: string;
  readonly tickScheduleGroupName: string;
  readonly tickSchedule: scheduler.CfnSchedule;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    let tick: { worker: WorkerDefinition; fn: LambdaFunction; expression: string } | undefined;

    for (const worker of WORKERS) {
      const fn = appFunction(this, pascal(worker.name), {
        handler: worker.handler,
        description: `idpay ${props.stage}: worker ${worker.name} (functions/${worker.handler}.ts)`,
        role: roleFor(this, props.roles.forWorker(worker)),
        environment: props.environment,
        timeout: seconds(worker.timeoutSeconds),
        logRetention: props.logRetention,
        logRemovalPolicy: props.logRemovalPolicy,
      });
      this.functions.push({ worker, fn });
      if (worker.trigger.kind === 'queue') {
        const { queue, definition } = props.queues.byName(worker.trigger.queue);
        fn.addEventSource(
          new SqsEventSource(queue, {
            batchSize: definition.batchSize,
            reportBatchItemFailures: true,
            ...(definition.maxConcurrency ? { maxConcurrency: definition.maxConcurrency } : {}),
          }),
        );
      } else if (worker.trigger.kind === 'stream') {
        fn.addEventSource(
          new DynamoEventSource(props.table, {
            startingPosition: lambda.StartingPosition[EVENT_STREAM.startingPosition],
            batchSize: EVENT_STREAM.batchSize,
            maxBatchingWindow: Duration.seconds(EVENT_STREAM.maxBatchingWindowSeconds),
            parallelizationFactor: EVENT_STREAM.parallelizationFactor,
            bisectBatchOnError: EVENT_STREAM.bisectBatchOnError,
            retryAttempts: EVENT_STREAM.maximumRetryAttempts,
            reportBatchItemFailures: true,
            onFailure: new SqsDlq(props.queues.streamFailures),
            filters: EVENT_STREAM.filters.map((f) => lambda.FilterCriteria.filter(f as unknown as Record<string, unknown>)),
          }),
        );
      } else {
        if (tick) throw new Error('Only one scheduled worker (the scheduler tick) is supported');
        tick = { worker, fn, expression: worker.trigger.expression };
      }
    }
    if (!tick) throw new Error('WORKERS has no scheduled worker (scheduler-tick)');

    // The stream consumer's first messages carry what a delivery's record starts with, and only
    // a webhook worker of the same version makes the record from them (an older one would find
    // no record and drop the message): a deploy updates the webhook lanes' workers first.
    const consumer = this.functions.find((f) => f.worker.trigger.kind === 'stream');
    const isLane = (w: WorkerDefinition) => w.trigger.kind === 'queue' && w.trigger.queue.startsWith('webhooks');
    for (const f of this.functions) if (isLane(f.worker)) consumer?.fn.node.addDependency(f.fn);
    // A billing's events ride on the billing (events/outbox.ts `carry`), and only a consumer of
    // the same version, behind the mapping's second filter, fans them out (an older one never
    // sees the billing's record): every other worker, which may bill or answer a billing
    // (recurring runs, expiries, the sandbox's bank), is updated after the consumer's mapping,
    // which CloudFormation updates after the consumer's code. The routes' stacks deploy after
    // this one.
    const mapping = consumer?.fn.node.children.find((c): c is lambda.EventSourceMapping => c instanceof lambda.EventSourceMapping);
    if (consumer && !mapping) throw new Error('the event stream consumer has no event source mapping');
    for (const f of this.functions) if (f !== consumer && !isLane(f.worker)) f.fn.node.addDependency(mapping!);

    // Names are fixed so that `npm run ops -- tick:pause|resume|status` can find the schedule.
    this.tickScheduleGroupName = `idpay-${props.stage}`;
    this.tickScheduleName = `idpay-${props.stage}-${tick.worker.name}`;
    const group = new scheduler.CfnScheduleGroup(this, 'ScheduleGroup', { name: this.tickScheduleGroupName });

    // The schedule's own role: it may invoke the tick function and nothing else.
    const role = new iam.Role(this, 'TickScheduleRole', {
      description: `EventBridge Scheduler: invoke the idpay ${props.stage} scheduler tick`,
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    });
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [tick.fn.functionArn] }));

    this.tickSchedule = new scheduler.CfnSchedule(this, 'TickSchedule', {
      name: this.tickScheduleName,
      groupName: group.ref,
      description: `idpay ${props.stage}: invokes ${tick.worker.handler} with the scheduled time`,
      scheduleExpression: tick.expression,
      scheduleExpressionTimezone: 'UTC',
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: tick.fn.functionArn,
        roleArn: role.roleArn,
        input: TICK_INPUT,
        // A tick is idempotent (claims are conditional writes) and the next one follows a
        // minute later, so a failed tick is retried briefly and then left to its successor.
        retryPolicy: { maximumEventAgeInSeconds: 300, maximumRetryAttempts: 3 },
      },
    });
    // The role's policy must exist before the scheduler first invokes the target.
    this.tickSchedule.node.addDependency(role);
  }
}
