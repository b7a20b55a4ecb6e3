import { idempotencyPk } from '../functions/http/idempotency';
import { Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { Route } from '../functions/routes';
import { dlqName, type WorkerDefinition } from '../functions/platform/definitions';
import { apiKeyKey } from '../functions/identity/participant-store';
import { membershipKey } from '../functions/identity/members';
import { deliveryKey, eventKey } from '../functions/webhooks/delivery-store';
import { RECEIPT_PK_PREFIX } from '../functions/events/receipts';
import { EXPORTS_PREFIX, type WorkQueues } from './data';
import { pascal } from './settings';

/**
 * What a function may do, derived from the route table (`kinds`, `access`, `method`):
 *
 * - `public`: no key (docs); logs only, no table access.
 * - `read`: GetItem/BatchGetItem/Query on the table and its indexes, plus UpdateItem on
 *   API-key and membership items only (every authenticated request counts its rate-limit
 *   window on its key's item, or on a signed-in person's membership item).
 * - `readIdempotent`: `read` + Put/Update/DeleteItem on idempotency records only: a POST
 *   route that only reads still stores its Idempotency-Key record (DESIGN 6.4).
 * - `write`: read/write on the table and indexes, SendMessage on the work queues (never the
 *   DLQs), read of the application secret.
 * - `writeMail`: `write` + `ses:SendEmail` from the stage's sender identity (MAIL_ROUTES).
 * - `readExports`: `read` + s3:GetObject on the export files: the role whose credentials
 *   sign the download URLs of `GET /v1/exports/{id}` (a pre-signed URL carries its signer's
 *   rights). No other function can read an export.
 * - `readScan`: `read` + Scan of the table (not of its indexes): the operator's trial balance,
 *   which sums every ledger entry (an operator report, never a participant's path).
 */
export type RouteProfile = 'public' | 'read' | 'readIdempotent' | 'write' | 'writeMail' | 'readExports' | 'readScan';

/**
 * The routes that e-mail people (invitations, DESIGN 9.1): `write` + `ses:SendEmail` from the
 * stage's one sender identity (`-c mailFrom`), and nothing else may send.
 */
export const MAIL_ROUTES = new Set(['POST /v1/team/invitations', 'POST /v1/operator/participants']);

/** The routes that hand out pre-signed GETs of export files. */
export const EXPORT_READ_ROUTES = new Set(['GET /v1/exports/{id}']);
/** The routes that scan the table (operator reports over the whole ledger). */
export const TABLE_SCAN_ROUTES = new Set(['GET /v1/operator/ledger/trial-balance']);

export function profileFor(route: Pick<Route, 'kinds' | 'access' | 'method' | 'path'>): RouteProfile {
  if (route.kinds.length === 0) return 'public';
  if (EXPORT_READ_ROUTES.has(`${route.method} ${route.path}`)) return 'readExports';
  if (TABLE_SCAN_ROUTES.has(`${route.method} ${route.path}`)) return 'readScan';
  if (MAIL_ROUTES.has(`${route.method} ${route.path}`)) return 'writeMail';
  if (route.access === 'write') return 'write';
  return route.method === 'POST' ? 'readIdempotent' : 'read';
}

/** Partition-key prefix of API-key items (functions/identity/participant-store.ts). */
export const API_KEY_PK_PREFIX = apiKeyKey('').pk;
/** A person's membership items: the pipeline counts a signed-in person's rate-limit window there. */
export const MEMBERSHIP_PK_PREFIX = membershipKey('', '').pk;
/** Partition-key prefix of idempotency records (functions/http/idempotency.ts). */
export const IDEMPOTENCY_PK_PREFIX = `${idempotencyPk('', '', '').split('#')[0]}#`;

export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];

/** The items the event stream consumer writes (functions/events/fanout.ts): events it carries, receipts, and the record of a delivery whose first message it could not send. */
export const STREAM_CONSUMER_PK_PREFIXES = [eventKey('').pk, deliveryKey('').pk, RECEIPT_PK_PREFIX].map((p) => `${p}*`);
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

export interface AccessRolesProps {
  table: dynamodb.ITable;
  queues: WorkQueues;
  secret: secretsmanager.ISecret;
  exportsBucket: s3.IBucket;
  /** The SES identity invitations are sent from, when the stage sends e-mail. */
  mailIdentityArn?: string;
}

/**
 * IAM roles shared by the functions of one profile (route functions) or owned by one worker.
 *
 * Functions of a profile have identical permissions, so they share one role: one role per
 * function would add ~110 IAM resources and push the stack towards CloudFormation's
 * 500-resource limit without granting anything less. Each function still gets write access
 * only to its own log group (added by the function factory).
 */
export class AccessRoles extends Construct {
  private readonly routeRoles = new Map<RouteProfile, iam.Role>();
  private readonly workerRoles = new Map<string, iam.Role>();

  constructor(
    scope: Construct,
    id: string,
    private readonly props: AccessRolesProps,
  ) {
    super(scope, id);
  }

  forRoute(profile: RouteProfile): iam.Role {
    let role = this.routeRoles.get(profile);
    if (role) return role;
    role = this.newRole(`Route${pascal(profile)}`, `idpay API functions, profile ${profile}`);
    const { queues, secret } = this.props;
    switch (profile) {
      case 'public':
        break;
      case 'read':
      case 'readIdempotent':
      case 'readExports':
      case 'readScan':
        this.allowTableRead(role);
        this.allowOnLeadingKeys(role, ['dynamodb:UpdateItem'], [`${API_KEY_PK_PREFIX}*`, `${MEMBERSHIP_PK_PREFIX}*`]);
        if (profile === 'readIdempotent') {
          this.allowOnLeadingKeys(role, ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], [`${IDEMPOTENCY_PK_PREFIX}*`]);
        }
        if (profile === 'readExports') this.allowExports(role, ['s3:GetObject']);
        if (profile === 'readScan')
          role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['dynamodb:Scan'], resources: [this.props.table.tableArn] }));
        break;
      case 'write':
      case 'writeMail':
        this.allowTableReadWrite(role);
        for (const q of queues.all) q.queue.grantSendMessages(role);
        secret.grantRead(role);
        if (profile === 'writeMail' && this.props.mailIdentityArn) {
          role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['ses:SendEmail'], resources: [this.props.mailIdentityArn] }));
        }
        break;
    }
    this.routeRoles.set(profile, role);
    return role;
  }

  /**
   * Workers: table read/write and the secret. The scheduler tick and the jobs worker send to
   * every work queue (fan-out; jobs enqueue webhook deliveries, a claim job the jobs it
   * claimed); a queue worker sends to its DLQ and the queues its definition names in
   * `sendsTo` (the webhook lanes, and a lane's own
   * queue: a retry is a new delayed message), and nothing else (the message visibility and
   * consume rights come from its event source). The event stream consumer reads the table,
   * writes only the items it makes (event items it carries, receipts, and the record of a
   * delivery whose first message it could not send: recovery's due entry) and
   * sends only to the webhooks queue; reading the stream and describing a failed batch to the
   * failure queue come from its event source.
   */
  forWorker(worker: WorkerDefinition): iam.Role {
    let role = this.workerRoles.get(worker.name);
    if (role) return role;
    role = this.newRole(`Worker${pascal(worker.name)}`, `idpay worker ${worker.name}`);
    const { queues, secret } = this.props;
    if (worker.trigger.kind === 'stream') {
      this.allowTableRead(role);
      this.allowOnLeadingKeys(role, ['dynamodb:PutItem', 'dynamodb:UpdateItem'], STREAM_CONSUMER_PK_PREFIXES);
      queues.byName('webhooks').queue.grantSendMessages(role);
      this.workerRoles.set(worker.name, role);
      return role;
    }
    this.allowTableReadWrite(role);
    secret.grantRead(role);
    if (worker.trigger.kind === 'schedule' || worker.name === 'jobs') {
      for (const q of queues.all) q.queue.grantSendMessages(role);
    }
    // The jobs worker runs `export.run`: a multipart upload of each export file (PutObject covers
    // create / upload part / complete), and its abort when a run fails. Nothing else touches S3.
    if (worker.name === 'jobs') this.allowExports(role, ['s3:PutObject', 's3:AbortMultipartUpload']);
    else if (worker.trigger.kind === 'queue') {
      const own = queues.byName(worker.trigger.queue);
      own.dlq.grantSendMessages(role);
      // Declared hand-offs (the webhook lanes): another work queue or another queue's DLQ.
      for (const target of own.definition.sendsTo ?? []) {
        const q = queues.all.find(({ definition }) => definition.name === target || dlqName(definition) === target);
        if (!q) throw new Error(`Queue ${worker.trigger.queue} sends to unknown queue ${target}`);
        (q.definition.name === target ? q.queue : q.dlq).grantSendMessages(role);
      }
      role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:ChangeMessageVisibility'], resources: [own.queue.queueArn] }));
    }
    this.workerRoles.set(worker.name, role);
    return role;
  }

  /** Actions on the export files only (`exports/*` of the stage's bucket). */
  private allowExports(role: iam.Role, actions: string[]): void {
    const bucket = this.props.exportsBucket;
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources: [bucket.arnForObjects(`${EXPORTS_PREFIX}*`)] }));
    const logicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as s3.CfnBucket);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/${EXPORTS_PREFIX}*]`,
      reason:
        'Export files are named per merchant and export at run time (exports/<merchantId>/<exportId>/run-<n>.csv); the grant covers that prefix of the one exports bucket only.',
    });
  }

  private newRole(id: string, description: string): iam.Role {
    return new iam.Role(this, id, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description,
    });
  }

  private allowTableRead(role: iam.Role): void {
    const { table } = this.props;
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: TABLE_READ_ACTIONS,
        resources: [table.tableArn, `${table.tableArn}/index/*`],
      }),
    );
    this.acknowledgeIndexWildcard(role);
  }

  private allowTableReadWrite(role: iam.Role): void {
    this.allowTableRead(role);
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: TABLE_WRITE_ACTIONS, resources: [this.props.table.tableArn] }));
  }

  /** Fine-grained access: the actions apply only to items whose partition key matches. */
  private allowOnLeadingKeys(role: iam.Role, actions: string[], patterns: string[]): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions,
        resources: [this.props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } },
      }),
    );
  }

  private acknowledgeIndexWildcard(role: iam.Role): void {
    const table = this.props.table;
    const cfnTable = table.node.defaultChild as dynamodb.CfnTable;
    const logicalId = Stack.of(table).getLogicalId(cfnTable);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/index/*]`,
      reason:
        'Read actions (GetItem/BatchGetItem/Query) on the indexes of the one application table; the index names are fixed by TABLE in functions/platform/definitions.ts and no other table is matched.',
    });
  }
}
