import { CfnOutput, RemovalPolicy, Stack, Tags, Validations, type StackProps } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { dlqName } from '../functions/platform/definitions';
import { AccessRoles } from './access';
import { Alarms } from './alarms';
import { Dashboard } from './dashboard';
import { HttpApi, functionIdOf } from './api';
import { People } from './identity';
import { AppSecrets, DataTable, WorkQueues } from './data';
import { Workers } from './workers';
import { RUNTIME_DEFAULTS, pascal, queueUrlEnv, type AppSettings, type StageName } from './settings';

export interface IdpayStackProps extends StackProps, AppSettings {}

export const stackNameOf = (stage: StageName) => `Idpay-${stage}`;

/**
 * One stage of the payment service (sandbox or live): HTTP API + one Lambda per route,
 * the single table, the work queues with DLQs, the workers and the scheduler tick, alarms.
 * Environment-agnostic: synthesizes offline, deploys to whatever account the CLI targets.
 */
export class IdpayStack extends Stack {
  readonly api: HttpApi;
  readonly data: DataTable;
  readonly queues: WorkQueues;
  readonly secrets: AppSecrets;
  readonly workers: Workers;
  readonly alarms: Alarms;
  readonly dashboard: Dashboard;
  readonly roles: AccessRoles;
  readonly people: People;

  constructor(scope: Construct, id: string, props: IdpayStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const live = stage === 'live';
    Tags.of(this).add('app', 'idpay');
    Tags.of(this).add('stage', stage);

    this.data = new DataTable(this, 'Data', { stage });
    this.queues = new WorkQueues(this, 'Queues');
    this.secrets = new AppSecrets(this, 'AppSecrets', { stage });
    this.people = new People(this, 'People', { stage });
    Validations.of(this.secrets.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The secret is the master key material the functions derive encryption keys from (agreement phrases, webhook secrets at rest). Rotating it would make every existing token undecryptable; rotation needs key versioning in the application first (tracked as a follow-up).',
    });

    const environment: Record<string, string> = {
      STAGE: stage,
      TABLE_NAME: this.data.table.tableName,
      ...Object.fromEntries(
        this.queues.all.flatMap(({ definition, queue, dlq }) => [
          [queueUrlEnv(definition.name), queue.queueUrl],
          [queueUrlEnv(dlqName(definition)), dlq.queueUrl],
        ]),
      ),
      ...RUNTIME_DEFAULTS,
      // Only the hash of the operator key is deployed; '' means no operator key is accepted.
      OPERATOR_API_KEY_HASH: props.operatorKeyHash,
      APP_SECRETS_ARN: this.secrets.secret.secretArn,
      POWERTOOLS_SERVICE_NAME: 'idpay',
      ...this.people.environment(),
    };

    const logRetention = live ? logs.RetentionDays.ONE_YEAR : logs.RetentionDays.ONE_MONTH;
    const logRemovalPolicy = live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.roles = new AccessRoles(this, 'Roles', {
      table: this.data.table,
      queues: this.queues,
      secret: this.secrets.secret,
    });
    this.api = new HttpApi(this, 'Api', { stage, roles: this.roles, environment, logRetention, logRemovalPolicy });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authentication is the API key of DESIGN 6.1, checked by every handler (SHA-256 hash lookup, stage check, participant kind from the route table); IAM or JWT authorizers do not fit bearer API keys, and the public routes (docs, $default 404) need none.',
    });
    this.workers = new Workers(this, 'Workers', {
      stage,
      roles: this.roles,
      queues: this.queues,
      environment,
      logRetention,
      logRemovalPolicy,
    });

    const functions = [
      { name: 'NotFound', fn: this.api.notFound },
      ...this.api.routes.map(({ route, fn }) => ({ name: functionIdOf(route.handler), fn })),
      ...this.workers.functions.map(({ worker, fn }) => ({ name: `Worker${pascal(worker.name)}`, fn })),
    ];
    const observed = {
      stage,
      api: this.api.api,
      queues: this.queues,
      table: this.data.table,
      scheduleGroupName: this.workers.tickScheduleGroupName,
      functions,
    };
    this.alarms = new Alarms(this, 'Alarms', { ...observed, alarmEmail: props.alarmEmail });
    this.dashboard = new Dashboard(this, 'Dashboard', { ...observed, alarms: this.alarms });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    for (const { definition, queue, dlq } of this.queues.all) {
      new CfnOutput(this, `QueueUrl${pascal(definition.name)}`, { value: queue.queueUrl });
      new CfnOutput(this, `DlqUrl${pascal(definition.name)}`, { value: dlq.queueUrl });
    }
    new CfnOutput(this, 'TickScheduleName', {
      value: this.workers.tickScheduleName,
      description: 'EventBridge Scheduler schedule of the scheduler tick (npm run ops -- tick:pause|resume|status)',
    });
    new CfnOutput(this, 'TickScheduleGroup', { value: this.workers.tickScheduleGroupName });
    new CfnOutput(this, 'AppSecretsArn', { value: this.secrets.secret.secretArn });
    new CfnOutput(this, 'UserPoolId', { value: this.people.userPool.userPoolId });
    new CfnOutput(this, 'DashboardClientId', { value: this.people.dashboardClient.userPoolClientId });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: `idpay-${stage}`, description: 'CloudWatch dashboard of this stage' });
  }
}
