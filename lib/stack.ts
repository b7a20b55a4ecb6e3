import { CfnOutput, Fn, RemovalPolicy, Stack, Tags, Validations, type App, type StackProps } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as ses from 'aws-cdk-lib/aws-ses';
import type { Construct } from 'constructs';
import { EVENT_STREAM, dlqName } from '../functions/platform/definitions';
import { routesFor } from '../functions/routes';
import { AccessRoles } from './access';
import { Alarms } from './alarms';
import { Dashboard } from './dashboard';
import { DashboardSite, WebFirewall, dashboardDistOf } from './edge';
import { HttpApi, RouteFunctions, functionIdOf, type FunctionSettings } from './api';
import { People } from './identity';
import { AppSecrets, DataTable, ExportsBucket, WorkQueues } from './data';
import { ROUTE_STACKS, routeStackOf, type RouteStackName } from './route-stacks';
import { Workers } from './workers';
import { EDGE_REGION, RUNTIME_DEFAULTS, pascal, queueUrlEnv, type AppSettings, type StageName } from './settings';

/**
 * A stage (sandbox or live) is several CloudFormation stacks, so that none nears the
 * 500-resource limit as routes are added (docs/decisions/stack-split.md):
 *
 *   Idpay-<stage>-data            table, work queues + DLQs, app secret, Cognito user pool, and
 *                                 the functions' IAM roles (one per access profile or worker)
 *   Idpay-<stage>                 the HTTP API (+ $default), workers, scheduler tick,
 *                                 and the outputs ops tooling reads (ApiUrl, queue URLs ...)
 *   Idpay-<stage>-routes-<area>   one Lambda + route per entry of the route table, by area
 *                                 (lib/route-stacks.ts derives the area from the path)
 *   Idpay-<stage>-observability   alarms, the alarm topic, the CloudWatch dashboard
 *   Idpay-<stage>-waf             the WAF web ACL of the edge, pinned to us-east-1 (CloudFront's
 *                                 web ACLs live there), no references to anything
 *   Idpay-<stage>-edge            the dashboard: its bucket, the CloudFront distribution (app +
 *                                 `/v1/*` to the API), the deployment of the build
 *
 * References only point down that list (data <- core <- routes <- observability; data, core,
 * waf <- edge), as weak references (`Fn::GetStackOutput`, cdk.json); `cdk deploy --all`
 * deploys them in that order. The edge reads the web ACL's ARN across regions: the waf
 * stack's region is fixed, so the reference can name it while every other stack stays
 * environment-agnostic (docs/decisions/dashboard-edge.md).
 */
export const stackNameOf = (stage: StageName) => `Idpay-${stage}`;
export const dataStackNameOf = (stage: StageName) => `Idpay-${stage}-data`;
export const routeStackNameOf = (stage: StageName, area: RouteStackName) => `Idpay-${stage}-routes-${area}`;
export const observabilityStackNameOf = (stage: StageName) => `Idpay-${stage}-observability`;
export const firewallStackNameOf = (stage: StageName) => `Idpay-${stage}-waf`;
export const edgeStackNameOf = (stage: StageName) => `Idpay-${stage}-edge`;

export interface IdpayStackProps extends StackProps, AppSettings {}

function tagged(stack: Stack, stage: StageName): void {
  Tags.of(stack).add('app', 'idpay');
  Tags.of(stack).add('stage', stage);
}

/** The stateful part of a stage: what holds data and must outlive any redeploy of code. */
export class DataStack extends Stack {
  readonly data: DataTable;
  readonly queues: WorkQueues;
  readonly secrets: AppSecrets;
  readonly people: People;
  readonly exports: ExportsBucket;
  readonly roles: AccessRoles;
  readonly mailIdentity?: ses.EmailIdentity;

  constructor(scope: Construct, id: string, props: IdpayStackProps) {
    super(scope, id, props);
    const { stage } = props;
    tagged(this, stage);
    this.data = new DataTable(this, 'Data', { stage });
    this.queues = new WorkQueues(this, 'Queues');
    this.secrets = new AppSecrets(this, 'AppSecrets', { stage });
    this.people = new People(this, 'People', { stage });
    this.exports = new ExportsBucket(this, 'Exports', { stage });
    // Invitations are e-mailed from one verified SES identity (`-c mailFrom`), when given.
    this.mailIdentity = props.mailFrom
      ? new ses.EmailIdentity(this, 'MailIdentity', { identity: ses.Identity.email(props.mailFrom) })
      : undefined;
    this.roles = new AccessRoles(this, 'Roles', {
      table: this.data.table,
      queues: this.queues,
      secret: this.secrets.secret,
      exportsBucket: this.exports.bucket,
      mailIdentityArn: this.mailIdentity
        ? Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: this.mailIdentity.emailIdentityName })
        : undefined,
    });
    Validations.of(this.secrets.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The secret is the master key material the functions derive encryption keys from (agreement phrases, webhook secrets at rest). Rotating it would make every existing token undecryptable; rotation needs key versioning in the application first (tracked as a follow-up).',
    });
  }
}

export interface CoreStackProps extends IdpayStackProps {
  dataStack: DataStack;
}

/** The HTTP API, the workers and the tick: what the route stacks plug into. */
export class CoreStack extends Stack {
  /** The data stack's roles (the functions here use imports of them: lib/lambda.ts roleFor). */
  readonly roles: AccessRoles;
  readonly api: HttpApi;
  readonly workers: Workers;
  /** What every function of the stage is created with (environment, log settings). */
  readonly functionSettings: FunctionSettings;

  constructor(scope: Construct, id: string, props: CoreStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const live = stage === 'live';
    const { data, queues, secrets, people, exports } = props.dataStack;
    tagged(this, stage);

    const environment: Record<string, string> = {
      STAGE: stage,
      TABLE_NAME: data.table.tableName,
      EXPORTS_BUCKET: exports.bucket.bucketName,
      ...Object.fromEntries(
        queues.all.flatMap(({ definition, queue, dlq }) => [
          [queueUrlEnv(definition.name), queue.queueUrl],
          [queueUrlEnv(dlqName(definition)), dlq.queueUrl],
        ]),
      ),
      ...RUNTIME_DEFAULTS,
      // Links in e-mail point at the dashboard: its custom domain when it has one, else the
      // DASHBOARD_URL setting (e.g. the distribution's address, known after the first deploy).
      ...(props.dashboardDomain ? { DASHBOARD_URL: `https://${props.dashboardDomain.name}` } : {}),
      ...props.runtime,
      ...(props.mailFrom ? { MAIL_FROM: props.mailFrom } : {}),
      // Only the hash of the operator key is deployed; '' means no operator key is accepted.
      OPERATOR_API_KEY_HASH: props.operatorKeyHash,
      APP_SECRETS_ARN: secrets.secret.secretArn,
      POWERTOOLS_SERVICE_NAME: 'idpay',
      ...people.environment(),
    };
    this.functionSettings = {
      stage,
      environment,
      logRetention: live ? logs.RetentionDays.ONE_YEAR : logs.RetentionDays.ONE_MONTH,
      logRemovalPolicy: live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    };

    this.roles = props.dataStack.roles;
    this.api = new HttpApi(this, 'Api', { ...this.functionSettings, roles: this.roles });
    this.workers = new Workers(this, 'Workers', { ...this.functionSettings, roles: this.roles, queues, table: data.table });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'TableName', { value: data.table.tableName });
    for (const { definition, queue, dlq } of queues.all) {
      new CfnOutput(this, `QueueUrl${pascal(definition.name)}`, { value: queue.queueUrl });
      new CfnOutput(this, `DlqUrl${pascal(definition.name)}`, { value: dlq.queueUrl });
    }
    new CfnOutput(this, `QueueUrl${pascal(EVENT_STREAM.onFailure)}`, {
      value: queues.streamFailures.queueUrl,
      description: 'Failed batches of the event stream (npm run ops -- stream:replay)',
    });
    new CfnOutput(this, 'TickScheduleName', {
      value: this.workers.tickScheduleName,
      description: 'EventBridge Scheduler schedule of the scheduler tick (npm run ops -- tick:pause|resume|status)',
    });
    new CfnOutput(this, 'TickScheduleGroup', { value: this.workers.tickScheduleGroupName });
    new CfnOutput(this, 'AppSecretsArn', { value: secrets.secret.secretArn });
    new CfnOutput(this, 'UserPoolId', { value: people.userPool.userPoolId });
    new CfnOutput(this, 'DashboardClientId', { value: people.dashboardClient.userPoolClientId });
  }
}

export interface RouteStackProps extends StackProps {
  area: RouteStackName;
  core: CoreStack;
}

/** The functions and API routes of one area of the route table. */
export class RouteStack extends Stack {
  readonly routeFunctions: RouteFunctions;

  constructor(scope: Construct, id: string, props: RouteStackProps) {
    super(scope, id, props);
    const { core } = props;
    const stage = core.functionSettings.stage;
    tagged(this, stage);
    this.routeFunctions = new RouteFunctions(this, 'Routes', {
      ...core.functionSettings,
      api: core.api.api,
      roles: core.roles,
      routes: routesFor(stage).filter((r) => routeStackOf(r) === props.area),
    });
  }
}

export interface ObservabilityStackProps extends IdpayStackProps {
  dataStack: DataStack;
  core: CoreStack;
  routeStacks: RouteStack[];
}

/** Alarms (and their SNS topic) and the stage's CloudWatch dashboard, over every other stack. */
export class ObservabilityStack extends Stack {
  readonly alarms: Alarms;
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const { core, dataStack } = props;
    tagged(this, stage);
    const functions = [
      { name: 'NotFound', fn: core.api.notFound },
      ...props.routeStacks.flatMap((s) => s.routeFunctions.routes).map(({ route, fn }) => ({ name: functionIdOf(route.handler), fn })),
      ...core.workers.functions.map(({ worker, fn }) => ({ name: `Worker${pascal(worker.name)}`, fn })),
    ];
    const observed = {
      stage,
      api: core.api.api,
      queues: dataStack.queues,
      table: dataStack.data.table,
      scheduleGroupName: core.workers.tickScheduleGroupName,
      eventStreamConsumer: core.workers.functions.find(({ worker }) => worker.trigger.kind === 'stream')?.fn,
      functions,
    };
    this.alarms = new Alarms(this, 'Alarms', { ...observed, alarmEmail: props.alarmEmail });
    this.dashboard = new Dashboard(this, 'Dashboard', { ...observed, alarms: this.alarms });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: `idpay-${stage}`, description: 'CloudWatch dashboard of this stage' });
  }
}

/** The WAF web ACL of the stage's distribution; in us-east-1 whatever the stage's region. */
export class FirewallStack extends Stack {
  /** Name of the output holding the web ACL's ARN (read by the edge stack). */
  static readonly WEB_ACL_ARN_OUTPUT = 'WebAclArn';
  readonly firewall: WebFirewall;

  constructor(scope: Construct, id: string, props: IdpayStackProps) {
    super(scope, id, { ...props, env: { region: EDGE_REGION } });
    tagged(this, props.stage);
    this.firewall = new WebFirewall(this, 'Firewall', { stage: props.stage });
    new CfnOutput(this, FirewallStack.WEB_ACL_ARN_OUTPUT, {
      value: this.firewall.webAcl.attrArn,
      description: 'AWS WAF web ACL of the dashboard distribution',
    });
  }
}

export interface EdgeStackProps extends IdpayStackProps {
  dataStack: DataStack;
  core: CoreStack;
  firewallStack: FirewallStack;
}

/** The dashboard (DESIGN 8.4): bucket, distribution (app + `/v1/*`), the build's deployment. */
export class EdgeStack extends Stack {
  readonly site: DashboardSite;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, props);
    const { stage, dataStack, core, firewallStack } = props;
    tagged(this, stage);
    // Across regions: CDK's automatic weak references need both regions known at synth, and
    // this stack's is not; the firewall's is (us-east-1), so the reference names it.
    const webAclArn = Fn.getStackOutput(firewallStack.stackName, FirewallStack.WEB_ACL_ARN_OUTPUT, firewallStack.region);
    this.addStackDependency(firewallStack, 'the web ACL ARN (Fn::GetStackOutput across regions)');
    this.site = new DashboardSite(this, 'Dashboard', {
      stage,
      apiEndpoint: core.api.api.apiEndpoint,
      webAclArn,
      userPoolId: dataStack.people.userPool.userPoolId,
      userPoolClientId: dataStack.people.dashboardClient.userPoolClientId,
      domain: props.dashboardDomain,
      dist: props.dashboardDist === undefined ? undefined : dashboardDistOf(props.dashboardDist),
    });
    new CfnOutput(this, 'DashboardUrl', {
      value: this.site.url,
      description: 'The dashboard (CloudFront; /v1/* on the same domain is the API)',
    });
    new CfnOutput(this, 'DistributionId', { value: this.site.distribution.distributionId });
    new CfnOutput(this, 'DistributionDomainName', {
      value: this.site.distribution.distributionDomainName,
      description: 'CNAME target of a custom dashboard domain',
    });
    new CfnOutput(this, 'DashboardBucketName', { value: this.site.bucket.bucketName });
  }
}

/**
 * Every stack of one stage, and shortcuts to the parts tests and tools look at
 * (`stage.data.table`, `stage.api`, `stage.alarms` ...), wherever their stack is.
 */
export class IdpayStage {
  readonly dataStack: DataStack;
  readonly core: CoreStack;
  readonly routeStacks: RouteStack[];
  readonly observability: ObservabilityStack;
  readonly firewallStack: FirewallStack;
  readonly edge: EdgeStack;

  constructor(app: App, props: IdpayStackProps) {
    const { stage } = props;
    const described = (what: string) => ({ ...props, description: `idpay identity-based payments, ${stage} stage: ${what}` });
    this.dataStack = new DataStack(app, dataStackNameOf(stage), described('table, queues, secret, user pool, IAM roles'));
    this.core = new CoreStack(app, stackNameOf(stage), { ...described('HTTP API, workers, scheduler tick'), dataStack: this.dataStack });
    const areas = new Set(routesFor(stage).map(routeStackOf));
    this.routeStacks = ROUTE_STACKS.filter(({ name }) => areas.has(name)).map(
      ({ name, summary }) =>
        new RouteStack(app, routeStackNameOf(stage, name), { ...described(`routes: ${summary}`), area: name, core: this.core }),
    );
    this.observability = new ObservabilityStack(app, observabilityStackNameOf(stage), {
      ...described('alarms and dashboard'),
      dataStack: this.dataStack,
      core: this.core,
      routeStacks: this.routeStacks,
    });
    this.firewallStack = new FirewallStack(
      app,
      firewallStackNameOf(stage),
      described('AWS WAF web ACL of the dashboard distribution (us-east-1)'),
    );
    this.edge = new EdgeStack(app, edgeStackNameOf(stage), {
      ...described('dashboard: bucket, CloudFront distribution, /v1 to the API'),
      dataStack: this.dataStack,
      core: this.core,
      firewallStack: this.firewallStack,
    });
  }

  get stacks(): Stack[] {
    return [this.dataStack, this.core, ...this.routeStacks, this.observability, this.firewallStack, this.edge];
  }
  get data() {
    return this.dataStack.data;
  }
  get queues() {
    return this.dataStack.queues;
  }
  get secrets() {
    return this.dataStack.secrets;
  }
  get people() {
    return this.dataStack.people;
  }
  get roles() {
    return this.dataStack.roles;
  }
  get api() {
    return this.core.api;
  }
  get workers() {
    return this.core.workers;
  }
  get alarms() {
    return this.observability.alarms;
  }
  get dashboard() {
    return this.observability.dashboard;
  }
  /** The dashboard's bucket and distribution. */
  get site() {
    return this.edge.site;
  }
  get firewall() {
    return this.firewallStack.firewall;
  }
  /** Every route function of the stage, in route-table order of their stacks. */
  get routes() {
    return this.routeStacks.flatMap((s) => s.routeFunctions.routes);
  }
}
