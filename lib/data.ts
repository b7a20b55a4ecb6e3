import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUES, TABLE, dlqName, type QueueDefinition } from '../functions/platform/definitions';
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

/** One SQS queue per `QUEUES` entry, each with its own DLQ (`dlqName(q)`). */
export class WorkQueues extends Construct {
  readonly all: WorkQueue[];

  constructor(scope: Construct, id: string) {
    super(scope, id);
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
