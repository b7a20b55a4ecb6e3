/**
 * IAM for artifacts mode: each AWS API call a function makes is mapped to the IAM actions,
 * resource ARNs and condition keys AWS authorizes it with, and evaluated against the
 * identity policies of the function's role from the template (@cloud-copilot/iam-simulate).
 *
 * Mapping (what AWS documents for each operation):
 * - DynamoDB: `dynamodb:<Operation>` on the table ARN (`.../index/<name>` for a Query or Scan
 *   of an index). TransactWriteItems / TransactGetItems are authorized item by item as
 *   Put/Update/Delete/ConditionCheckItem and GetItem; BatchGet/BatchWriteItem per table.
 *   `dynamodb:LeadingKeys` carries the partition-key values the request touches (keys,
 *   items, and a Query's `pk = :v` key condition).
 * - SQS: `sqs:<Operation>` on the queue ARN from the QueueUrl (batch operations as their
 *   single form: SendMessageBatch -> sqs:SendMessage), with `aws:SecureTransport` true (a
 *   function reaches SQS over TLS).
 * - Secrets Manager: `secretsmanager:<Operation>` on the secret's ARN.
 * Only identity policies are evaluated (resource policies such as the queues' SSL-only policy
 * hold for every caller over TLS and add no grant).
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { LOCAL_ACCOUNT, type PolicyDocument } from './template';

export interface Authorization {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

export type Decision = { allowed: true } | { allowed: false; explicit: boolean; action: string; resource: string };

/** A role's identity policies, with decisions cached per (action, resource, context). */
export class IamPrincipal {
  private readonly cache = new Map<string, Promise<'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied'>>();

  /** Condition keys any statement tests (lower case): other context keys cannot change a decision. */
  private readonly conditionKeys = new Set<string>();

  constructor(
    /** `arn:aws:sts::<acct>:assumed-role/<role>/<session>`, as AWS names the caller. */
    readonly arn: string,
    readonly policies: PolicyDocument[],
  ) {
    for (const p of policies) {
      for (const st of [p.policy?.Statement ?? []].flat() as { Condition?: Record<string, Record<string, unknown>> }[]) {
        for (const byKey of Object.values(st.Condition ?? {})) for (const k of Object.keys(byKey)) this.conditionKeys.add(k.toLowerCase());
      }
    }
  }

  private evaluate(a: Authorization) {
    // Decisions are cached per action, resource and the context keys the policies test, so a
    // role without conditions evaluates each (action, resource) once.
    const relevant = Object.entries(a.context ?? {}).filter(([k]) => this.conditionKeys.has(k.toLowerCase()));
    const key = JSON.stringify([a.action, a.resource, relevant]);
    let hit = this.cache.get(key);
    if (!hit) {
      hit = runSimulation(
        {
          request: {
            principal: this.arn,
            action: a.action,
            resource: { resource: a.resource, accountId: LOCAL_ACCOUNT },
            contextVariables: a.context ?? {},
          },
          identityPolicies: this.policies,
          serviceControlPolicies: [],
          resourceControlPolicies: [],
        },
        {},
      ).then((r) => {
        if (r.resultType === 'error') throw new Error(`IAM simulation failed for ${a.action} on ${a.resource}: ${r.errors.message}`);
        return r.overallResult;
      });
      this.cache.set(key, hit);
    }
    return hit;
  }

  /** Allowed only if every authorization is. */
  async check(all: Authorization[]): Promise<Decision> {
    for (const a of all) {
      const r = await this.evaluate(a);
      if (r !== 'Allowed') return { allowed: false, explicit: r === 'ExplicitlyDenied', action: a.action, resource: a.resource };
    }
    return { allowed: true };
  }
}

/** AWS's wording of an AccessDenied for a role session. */
export function accessDeniedMessage(principalArn: string, d: Extract<Decision, { allowed: false }>): string {
  const why = d.explicit
    ? 'with an explicit deny in an identity-based policy'
    : `because no identity-based policy allows the ${d.action} action`;
  return `User: ${principalArn} is not authorized to perform: ${d.action} on resource: ${d.resource} ${why}`;
}

// ---- request -> authorizations ----

export interface TableInfo {
  arn: string;
  partitionKey: string;
}

type Attr = Record<string, unknown>;
const scalar = (v: unknown): string | undefined => {
  const a = v as Attr | undefined;
  if (!a || typeof a !== 'object') return undefined;
  for (const t of ['S', 'N', 'B']) if (typeof a[t] === 'string') return a[t] as string;
  return undefined;
};

export function dynamoAuthorizations(
  operation: string,
  body: Record<string, any>,
  table: (nameOrArn: string) => TableInfo,
  region: string,
): Authorization[] {
  const leading = (_t: TableInfo, values: (string | undefined)[]): Record<string, string[]> => {
    const v = values.filter((x): x is string => x !== undefined);
    return v.length ? { 'dynamodb:LeadingKeys': [...new Set(v)] } : {};
  };
  const one = (action: string, tableName: string, keyOrItem?: Attr, extra: Partial<Authorization> = {}): Authorization => {
    const t = table(tableName);
    return { action: `dynamodb:${action}`, resource: t.arn, context: leading(t, [scalar(keyOrItem?.[t.partitionKey])]), ...extra };
  };
  switch (operation) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [one(operation, body.TableName, body.Key)];
    case 'PutItem':
      return [one(operation, body.TableName, body.Item)];
    case 'Query':
    case 'Scan': {
      const t = table(body.TableName);
      const resource = body.IndexName ? `${t.arn}/index/${body.IndexName}` : t.arn;
      let context: Record<string, string[]> = {};
      if (operation === 'Query' && !body.IndexName && typeof body.KeyConditionExpression === 'string') {
        const names = (body.ExpressionAttributeNames ?? {}) as Record<string, string>;
        for (const m of body.KeyConditionExpression.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
          const name = names[m[1]!] ?? m[1]!;
          if (name === t.partitionKey) context = leading(t, [scalar(body.ExpressionAttributeValues?.[m[2]!])]);
        }
      }
      return [{ action: `dynamodb:${operation}`, resource, context }];
    }
    case 'BatchGetItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, { Keys: Attr[] }>).map(([name, r]) => {
        const t = table(name);
        return {
          action: 'dynamodb:BatchGetItem',
          resource: t.arn,
          context: leading(
            t,
            r.Keys.map((k) => scalar(k[t.partitionKey])),
          ),
        };
      });
    case 'BatchWriteItem':
      return Object.entries((body.RequestItems ?? {}) as Record<string, Attr[]>).map(([name, reqs]) => {
        const t = table(name);
        const keys = reqs.map((r: any) => scalar((r.PutRequest?.Item ?? r.DeleteRequest?.Key)?.[t.partitionKey]));
        return { action: 'dynamodb:BatchWriteItem', resource: t.arn, context: leading(t, keys) };
      });
    case 'TransactWriteItems':
      return (body.TransactItems as any[]).map((i) => {
        if (i.Put) return one('PutItem', i.Put.TableName, i.Put.Item);
        if (i.Update) return one('UpdateItem', i.Update.TableName, i.Update.Key);
        if (i.Delete) return one('DeleteItem', i.Delete.TableName, i.Delete.Key);
        return one('ConditionCheckItem', i.ConditionCheck.TableName, i.ConditionCheck.Key);
      });
    case 'TransactGetItems':
      return (body.TransactItems as any[]).map((i) => one('GetItem', i.Get.TableName, i.Get.Key));
    case 'ListTables':
      return [{ action: 'dynamodb:ListTables', resource: '*' }];
    default:
      if (body.TableName) return [one(operation, body.TableName)];
      return [{ action: `dynamodb:${operation}`, resource: `arn:aws:dynamodb:${region}:${LOCAL_ACCOUNT}:*` }];
  }
}

const SQS_SINGLE: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

export function sqsAuthorizations(operation: string, body: Record<string, any>, region: string): Authorization[] {
  const action = `sqs:${SQS_SINGLE[operation] ?? operation}`;
  const context = { 'aws:SecureTransport': 'true' };
  if (operation === 'ListQueues') return [{ action, resource: '*', context }];
  const name = typeof body.QueueUrl === 'string' ? body.QueueUrl.split('/').pop() : body.QueueName;
  const account = typeof body.QueueUrl === 'string' ? body.QueueUrl.split('/').slice(-2)[0] : LOCAL_ACCOUNT;
  return [{ action, resource: `arn:aws:sqs:${region}:${account}:${name}`, context }];
}

export function secretsAuthorizations(operation: string, body: Record<string, any>, arnOf: (id: string) => string): Authorization[] {
  return [{ action: `secretsmanager:${operation}`, resource: arnOf(String(body.SecretId ?? '*')) }];
}

/**
 * S3's REST calls (path-style: `/<bucket>/<key>`), as IAM authorizes them: the multipart
 * upload's create, parts and completion are `s3:PutObject`, its abort
 * `s3:AbortMultipartUpload`, a GET or HEAD `s3:GetObject`, on `arn:aws:s3:::<bucket>/<key>`.
 * A request on a bucket itself (no key) names the bucket.
 */
export function s3Authorizations(method: string, url: string): Authorization[] {
  const u = new URL(url, 'http://local');
  const [bucket = '', ...rest] = u.pathname.replace(/^\//, '').split('/');
  const key = rest.map(decodeURIComponent).join('/');
  const context = { 'aws:SecureTransport': 'true' };
  const resource = key ? `arn:aws:s3:::${bucket}/${key}` : `arn:aws:s3:::${bucket}`;
  const m = method.toUpperCase();
  const action =
    m === 'GET' || m === 'HEAD'
      ? key
        ? 's3:GetObject'
        : 's3:ListBucket'
      : m === 'DELETE'
        ? u.searchParams.has('uploadId')
          ? 's3:AbortMultipartUpload'
          : 's3:DeleteObject'
        : 's3:PutObject';
  return [{ action, resource, context }];
}
