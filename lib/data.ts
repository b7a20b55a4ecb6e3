import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_STREAM, QUEUES, TABLE, dlqName, type QueueDefinition } from '../functions/platform/definitions';
import { pascal, type StageName } from './settings';

const attr = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });

const PROJECTION: Record<(typeof TABLE.indexes)[number]['projection'], dynamodb.ProjectionType> = {
  ALL: dynamodb.ProjectionType.ALL,
  KEYS_ONLY: dynamodb.ProjectionType.KEYS_ONLY,
};

/** The single table of DESIGN 4, built from `TABLE` in functions/platform/definitions.ts. */
export class DataTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: { stage: StageName }) {
    super(scope, id);
    const live = props.stage === 'live';
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: attr(TABLE.partitionKey),
      sortKey: attr(TABLE.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE.ttlAttribute,
      // The event pipeline reads inserted event items from it (EVENT_STREAM, lib/workers.ts).
      stream: dynamodb.StreamViewType[TABLE.stream],
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: live,
      removalPolicy: live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    for (const index of TABLE.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: attr(index.partitionKey),
        sortKey: attr(index.sortKey),
        projectionType: PROJECTION[index.projection],
      });
    }
  }
}

export interface WorkQueue {
  definition: QueueDefinition;
  queue: sqs.Queue;
  dlq: sqs.Queue;
}

/**
 * One SQS queue per `QUEUES` entry, each with its own DLQ (`dlqName(q)`), and the event
 * stream's failure queue: where a batch of stream records whose retries ran out is described
 * (Lambda's on-failure destination; `npm run ops -- stream:replay` sends them again).
 */
export class WorkQueues extends Construct {
  readonly all: WorkQueue[];
  readonly streamFailures: sqs.Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.streamFailures = new sqs.Queue(this, pascal(EVENT_STREAM.onFailure), {
      // Stream records are kept 24 h: a failure older than that can no longer be replayed.
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'A destination, not a work queue: Lambda writes the description of a failed batch of stream records here and nothing consumes it but ops (stream:replay); a message that stays is the alarm (lib/alarms.ts), so a DLQ behind it would hold nothing.',
    });
    this.all = QUEUES.map((definition) => {
      const dlq = new sqs.Queue(this, pascal(dlqName(definition)), {
        retentionPeriod: Duration.days(14),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const queue = new sqs.Queue(this, pascal(definition.name), {
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        // Messages outlive the longest webhook backoff schedule (>= 24 h) comfortably.
        retentionPeriod: Duration.days(4),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: dlq, maxReceiveCount: definition.maxReceiveCount },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      return { definition, queue, dlq };
    });
  }

  byName(name: string): WorkQueue {
    const q = this.all.find((w) => w.definition.name === name);
    if (!q) throw new Error(`Unknown queue ${name} (see QUEUES in functions/platform/definitions.ts)`);
    return q;
  }
}

/**
 * The application secret: a generated JSON value `{"masterKey": "<64 chars>"}` from which the
 * functions derive their encryption keys (agreement phrases, webhook secrets at rest).
 */
export class AppSecrets extends Construct {
  readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: { stage: StageName }) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description: `idpay ${props.stage}: master key material; functions derive their encryption keys from it`,
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'masterKey',
        passwordLength: 64,
        excludePunctuation: true,
      },
      // Losing the master key makes every encrypted token unreadable: keep it in live.
      removalPolicy: props.stage === 'live' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}

/** Key prefix of the export files (functions/exports/run.ts writes `exports/<merchantId>/<exportId>/run-<n>.csv`). */
export const EXPORTS_PREFIX = 'exports/';
/** Days an export file is kept (its download URL lives 15 minutes; a new one can be asked for until then). */
export const EXPORT_RETENTION_DAYS = 7;

/**
 * The exports bucket of a stage (DESIGN 8.8): private (all public access blocked,
 * ACLs disabled), encrypted at rest (S3-managed keys), TLS only, files expire after
 * EXPORT_RETENTION_DAYS and incomplete multipart uploads are aborted after a day. Reached
 * only through pre-signed GETs made by the export read function's role.
 */
export class ExportsBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: { stage: StageName }) {
    super(scope, id);
    const live = props.stage === 'live';
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: false,
      lifecycleRules: [
        { id: 'expire-exports', prefix: EXPORTS_PREFIX, expiration: Duration.days(EXPORT_RETENTION_DAYS) },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Export files are short-lived copies of data the API already serves to the same merchant; reads happen only through pre-signed URLs issued by the API (each issue is in the API logs with its request id). Server access logs would need a second bucket per stage for little gain; CloudTrail S3 data events can be enabled per account if required.',
    });
  }
}
