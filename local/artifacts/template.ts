/**
 * Reads a cloud assembly (every stack of manifest.json, nested assemblies included) into
 * what artifacts mode runs: functions (bundle, environment, role), their IAM policies, the
 * tables, queues and secrets, and the triggers (HTTP API routes, SQS and DynamoDB Streams event
 * source mappings, Scheduler schedules). Nothing here knows this app's routes or queues: only CloudFormation.
 *
 * Substitution rules (the only values the local runtime puts in place of AWS's):
 * - Physical names: a table is the caller's table name (`<tableName>-<LogicalId>` when the
 *   assembly has several), a queue `<queuePrefix><QueueName or LogicalId>`, anything else
 *   `<StackName>-<LogicalId>`; account 000000000000, region us-east-1, partition aws.
 * - `Ref` and `Fn::GetAtt` give what CloudFormation gives for the type (a queue's Ref is
 *   its URL on the SQS emulator, a table's Ref its name, a secret's Ref its ARN, `.Arn` an
 *   ARN of the type's format); `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split` are evaluated;
 *   `Fn::ImportValue` takes the value another stack of the assembly exports, and
 *   `Fn::GetStackOutput` the value of another stack's output (weak references).
 * - Anything else (conditions, parameters, custom resources) is refused with the path of
 *   the value, so a template the local runtime cannot honour fails loudly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_PARTITION = 'aws';

type Json = any;

export interface CfnResource {
  Type: string;
  Properties?: Json;
  Metadata?: Record<string, Json>;
}

export interface StackTemplate {
  stackName: string;
  /** Directory of the (possibly nested) assembly holding the stack's assets. */
  dir: string;
  resources: Record<string, CfnResource>;
  outputs: Record<string, { Value: Json; Export?: { Name: Json } }>;
}

/** Every CloudFormation stack of an assembly directory, nested assemblies included. */
export function readStacks(dir: string): StackTemplate[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: Record<string, Json>; displayName?: string }>;
  };
  const stacks: StackTemplate[] = [];
  for (const [id, a] of Object.entries(manifest.artifacts ?? {})) {
    if (a.type === 'aws:cloudformation:stack') {
      const t = JSON.parse(readFileSync(join(dir, a.properties!.templateFile as string), 'utf8')) as Json;
      stacks.push({
        stackName: (a.properties?.stackName as string | undefined) ?? a.displayName ?? id,
        dir,
        resources: t.Resources ?? {},
        outputs: t.Outputs ?? {},
      });
    } else if (a.type === 'cdk:cloud-assembly') {
      stacks.push(...readStacks(join(dir, a.properties!.directoryName as string)));
    }
  }
  if (!stacks.length) throw new Error(`No CloudFormation stack in ${dir}/manifest.json`);
  return stacks;
}

/** `stack/LogicalId`: a resource's id across the stacks of one assembly. */
export const rid = (stack: string, logicalId: string) => `${stack}/${logicalId}`;

export interface Physical {
  ref: string;
  attrs: Record<string, string>;
}

export interface Naming {
  region: string;
  tableName: string;
  queuePrefix: string;
  /** SQS emulator URL of a queue name. */
  queueUrl(name: string): string;
}

const svc = (type: string) => type.split('::')[1]!.toLowerCase();

/** What CloudFormation would return for Ref / GetAtt, with local physical names. */
function physicalOf(stack: StackTemplate, logicalId: string, r: CfnResource, n: Naming, tableCount: number): Physical {
  const { region } = n;
  const acct = LOCAL_ACCOUNT;
  const p = r.Properties ?? {};
  const generic = `${stack.stackName}-${logicalId}`;
  switch (r.Type) {
    case 'AWS::DynamoDB::Table': {
      const name = tableCount === 1 ? n.tableName : `${n.tableName}-${logicalId}`;
      const arn = `arn:aws:dynamodb:${region}:${acct}:table/${name}`;
      return { ref: name, attrs: { Arn: arn, StreamArn: `${arn}/stream/local` } };
    }
    case 'AWS::SQS::Queue': {
      const name = `${n.queuePrefix}${typeof p.QueueName === 'string' ? p.QueueName : logicalId}`;
      const url = n.queueUrl(name);
      return { ref: url, attrs: { Arn: `arn:aws:sqs:${region}:${acct}:${name}`, QueueName: name, QueueUrl: url } };
    }
    case 'AWS::SecretsManager::Secret': {
      const arn = `arn:aws:secretsmanager:${region}:${acct}:secret:${generic}-AbCdEf`;
      return { ref: arn, attrs: { Id: arn } };
    }
    case 'AWS::S3::Bucket': {
      // S3 names are global and lowercase: one per local app, under its queue prefix.
      const name =
        typeof p.BucketName === 'string' ? p.BucketName : `${n.queuePrefix}${logicalId}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
      return {
        ref: name,
        attrs: {
          Arn: `arn:aws:s3:::${name}`,
          DomainName: `${name}.s3.amazonaws.com`,
          RegionalDomainName: `${name}.s3.${region}.amazonaws.com`,
        },
      };
    }
    case 'AWS::Lambda::Function':
      return { ref: generic, attrs: { Arn: `arn:aws:lambda:${region}:${acct}:function:${generic}` } };
    case 'AWS::IAM::Role':
      return {
        ref: generic,
        attrs: { Arn: `arn:aws:iam::${acct}:role/${generic}`, RoleId: `AROA${logicalId.toUpperCase().slice(0, 16)}` },
      };
    case 'AWS::IAM::ManagedPolicy':
      return { ref: `arn:aws:iam::${acct}:policy/${generic}`, attrs: {} };
    case 'AWS::Logs::LogGroup': {
      const name = typeof p.LogGroupName === 'string' ? p.LogGroupName : `/aws/lambda/${generic}`;
      return { ref: name, attrs: { Arn: `arn:aws:logs:${region}:${acct}:log-group:${name}:*` } };
    }
    case 'AWS::SNS::Topic': {
      const arn = `arn:aws:sns:${region}:${acct}:${generic}`;
      return { ref: arn, attrs: { TopicArn: arn, TopicName: generic } };
    }
    case 'AWS::Scheduler::ScheduleGroup':
    case 'AWS::Scheduler::Schedule': {
      const name = typeof p.Name === 'string' ? p.Name : generic;
      const kind = r.Type.endsWith('Group') ? 'schedule-group' : 'schedule/default';
      return { ref: name, attrs: { Arn: `arn:aws:scheduler:${region}:${acct}:${kind}/${name}` } };
    }
    case 'AWS::ApiGatewayV2::Api':
      return { ref: logicalId.toLowerCase().slice(0, 10), attrs: { ApiEndpoint: 'http://127.0.0.1' } };
    default:
      return { ref: generic, attrs: { Arn: `arn:aws:${svc(r.Type)}:${region}:${acct}:${generic}` } };
  }
}

const PSEUDO = (stack: StackTemplate, region: string): Record<string, string> => ({
  'AWS::Region': region,
  'AWS::AccountId': LOCAL_ACCOUNT,
  'AWS::Partition': LOCAL_PARTITION,
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': stack.stackName,
  'AWS::StackId': `arn:aws:cloudformation:${region}:${LOCAL_ACCOUNT}:stack/${stack.stackName}/local`,
  'AWS::NotificationARNs': '',
});

/** The resources of every stack with local physical ids, and an intrinsic-function resolver. */
export class Assembly {
  readonly stacks: StackTemplate[];
  private readonly physical = new Map<string, Physical>();
  private exportsCache?: Map<string, unknown>;

  constructor(
    dir: string,
    readonly naming: Naming,
  ) {
    this.stacks = readStacks(dir);
    const tables = this.resourcesOf('AWS::DynamoDB::Table').length;
    for (const s of this.stacks) {
      for (const [id, r] of Object.entries(s.resources)) this.physical.set(rid(s.stackName, id), physicalOf(s, id, r, naming, tables));
    }
  }

  stack(name: string): StackTemplate {
    const s = this.stacks.find((x) => x.stackName === name);
    if (!s) throw new Error(`No stack ${name} in the assembly`);
    return s;
  }

  resourcesOf(type: string): { id: string; stack: StackTemplate; logicalId: string; resource: CfnResource }[] {
    return this.stacks.flatMap((stack) =>
      Object.entries(stack.resources)
        .filter(([, r]) => r.Type === type)
        .map(([logicalId, resource]) => ({ id: rid(stack.stackName, logicalId), stack, logicalId, resource })),
    );
  }

  resource(id: string): CfnResource {
    const [stack, logicalId] = splitId(id);
    const r = this.stack(stack).resources[logicalId];
    if (!r) throw new Error(`No resource ${id}`);
    return r;
  }

  physicalOf(id: string): Physical {
    const p = this.physical.get(id);
    if (!p) throw new Error(`No resource ${id}`);
    return p;
  }

  /** The resource whose Ref or any attribute equals `value` (an ARN, a name, a URL). */
  findByPhysical(value: string, type?: string): string | undefined {
    for (const [id, p] of this.physical) {
      if (type && this.resource(id).Type !== type) continue;
      if (p.ref === value || Object.values(p.attrs).includes(value)) return id;
    }
    return undefined;
  }

  private exports(): Map<string, unknown> {
    if (!this.exportsCache) {
      this.exportsCache = new Map();
      for (const s of this.stacks) {
        for (const o of Object.values(s.outputs)) {
          if (o.Export) this.exportsCache.set(String(this.resolve(s.stackName, o.Export.Name)), this.resolve(s.stackName, o.Value));
        }
      }
    }
    return this.exportsCache;
  }

  /** Evaluates the intrinsic functions of `value` in the context of stack `stackName`. */
  resolve(stackName: string, value: unknown, path = '$'): unknown {
    if (Array.isArray(value)) return value.map((v, i) => this.resolve(stackName, v, `${path}[${i}]`));
    if (value === null || typeof value !== 'object') return value;
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o);
    const stack = this.stack(stackName);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'))) {
      const k = keys[0]!;
      const arg = o[k];
      const fail = (why: string): never => {
        throw new Error(`artifacts mode cannot resolve ${k} at ${stackName} ${path}: ${why}`);
      };
      switch (k) {
        case 'Ref': {
          const name = String(arg);
          const pseudo = PSEUDO(stack, this.naming.region)[name];
          if (pseudo !== undefined) return pseudo;
          const p = this.physical.get(rid(stackName, name));
          return p ? p.ref : fail(`no resource ${name} (parameters are not supported)`);
        }
        case 'Fn::GetAtt': {
          const [lid, attr] = Array.isArray(arg) ? (arg as string[]) : String(arg).split(/\.(.*)/s);
          const p = this.physical.get(rid(stackName, String(lid)));
          const v = p?.attrs[String(attr)];
          return v ?? fail(`no local value for ${lid}.${attr}`);
        }
        case 'Fn::Join': {
          const [sep, list] = arg as [string, unknown[]];
          return (this.resolve(stackName, list, path) as unknown[]).map(String).join(sep);
        }
        case 'Fn::Select': {
          const [i, list] = arg as [unknown, unknown];
          return (this.resolve(stackName, list, path) as unknown[])[Number(this.resolve(stackName, i, path))];
        }
        case 'Fn::Split': {
          const [sep, s] = arg as [string, unknown];
          return String(this.resolve(stackName, s, path)).split(sep);
        }
        case 'Fn::Sub': {
          const [tpl, vars] = Array.isArray(arg) ? (arg as [string, Record<string, unknown>]) : [String(arg), {}];
          return tpl.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
            if (name in vars) return String(this.resolve(stackName, vars[name], path));
            const dot = name.indexOf('.');
            if (dot > 0 && !name.startsWith('AWS::')) {
              return String(this.resolve(stackName, { 'Fn::GetAtt': [name.slice(0, dot), name.slice(dot + 1)] }, path));
            }
            return String(this.resolve(stackName, { Ref: name }, path));
          });
        }
        case 'Fn::ImportValue': {
          const name = String(this.resolve(stackName, arg, path));
          const v = this.exports().get(name);
          return v ?? fail(`no stack of the assembly exports ${name}`);
        }
        case 'Fn::GetStackOutput': {
          // A weak cross-stack reference (cdk.json defaultCrossStackReferences: weak): the
          // named output of another stack of the assembly, read without an export.
          const { StackName, OutputName } = arg as { StackName: unknown; OutputName: unknown };
          const producer = this.stacks.find((s) => s.stackName === String(this.resolve(stackName, StackName, path)));
          const output = producer?.outputs[String(this.resolve(stackName, OutputName, path))];
          return output && producer
            ? this.resolve(producer.stackName, output.Value, `${producer.stackName}.Outputs`)
            : fail(`no such stack output ${JSON.stringify(arg)}`);
        }
        default:
          return fail('not supported locally');
      }
    }
    return Object.fromEntries(keys.map((k) => [k, this.resolve(stackName, o[k], `${path}.${k}`)]));
  }
}

export function splitId(id: string): [string, string] {
  const i = id.lastIndexOf('/');
  return [id.slice(0, i), id.slice(i + 1)];
}

// ---- the parts artifacts mode runs ----

export interface FunctionSpec {
  id: string;
  name: string;
  arn: string;
  /** Absolute directory of the function's bundle (its asset). */
  codeDir: string;
  /** `index.handler` -> file `index`, export `handler`. */
  handler: string;
  /** The template's variables, resolved. */
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  roleId: string;
  roleArn: string;
  description: string;
}

export interface PolicyDocument {
  name: string;
  policy: Json;
}

export interface RouteSpec {
  routeKey: string;
  method: string;
  path: string;
  functionId: string;
}

export interface QueueSpec {
  id: string;
  name: string;
  url: string;
  arn: string;
  properties: Json;
}

export interface TableSpec {
  id: string;
  name: string;
  arn: string;
  properties: Json;
  partitionKey: string;
}

export interface EventSourceSpec {
  /** An SQS queue's mapping (`queueId`) or a table stream's (`tableId` and `stream`). */
  queueId?: string;
  tableId?: string;
  functionId: string;
  batchSize: number;
  reportBatchItemFailures: boolean;
  maxConcurrency?: number;
  enabled: boolean;
  stream?: {
    startingPosition: 'TRIM_HORIZON' | 'LATEST';
    parallelizationFactor: number;
    maximumRetryAttempts: number;
    bisectBatchOnError: boolean;
    /** Lambda filter patterns, parsed. */
    filters: unknown[];
    /** ARN of the on-failure destination (an SQS queue of the assembly), if any. */
    onFailure?: string;
    /** The stream's ARN as the template gives it. */
    arn: string;
  };
}

export interface ScheduleSpec {
  name: string;
  expression: string;
  functionId: string;
  input: string;
  roleId?: string;
  enabled: boolean;
}

export interface SecretSpec {
  id: string;
  arn: string;
  properties: Json;
}

export interface AppModel {
  assembly: Assembly;
  functions: FunctionSpec[];
  policiesByRole: Map<string, PolicyDocument[]>;
  tables: TableSpec[];
  queues: QueueSpec[];
  secrets: SecretSpec[];
  /** The buckets' local names (the emulator's S3). */
  buckets: string[];
  routes: RouteSpec[];
  /** Function of the `$default` route, if any. */
  defaultRoute?: string;
  eventSources: EventSourceSpec[];
  schedules: ScheduleSpec[];
}

export function readModel(dir: string, naming: Naming): AppModel {
  const a = new Assembly(dir, naming);
  const res = (x: { stack: StackTemplate }, v: unknown, path: string) => a.resolve(x.stack.stackName, v, path);
  const functionByRef = (value: unknown): string => {
    const v = String(value);
    const id = a.findByPhysical(v, 'AWS::Lambda::Function') ?? a.findByPhysical(v.replace(/:[^:]+$/, ''), 'AWS::Lambda::Function');
    if (!id) throw new Error(`artifacts mode: ${v} names no function of the assembly`);
    return id;
  };

  // Node.js functions only: the dashboard's BucketDeployment (a Python custom resource of the
  // edge stack) never runs locally.
  const functions: FunctionSpec[] = a
    .resourcesOf('AWS::Lambda::Function')
    .filter((f) => String((f.resource.Properties as { Runtime?: string } | undefined)?.Runtime ?? 'nodejs').startsWith('nodejs'))
    .map((f) => {
      const p = f.resource.Properties ?? {};
      const asset = f.resource.Metadata?.['aws:asset:path'];
      if (typeof asset !== 'string')
        throw new Error(`Function ${f.id} has no bundled asset (aws:asset:path); inline or image code is not supported locally`);
      const env = (res(f, p.Environment?.Variables ?? {}, `${f.logicalId}.Environment`) ?? {}) as Record<string, unknown>;
      const roleArn = String(res(f, p.Role, `${f.logicalId}.Role`));
      const roleId = a.findByPhysical(roleArn, 'AWS::IAM::Role');
      if (!roleId) throw new Error(`Function ${f.id}: role ${roleArn} is not in the assembly`);
      const phys = a.physicalOf(f.id);
      return {
        id: f.id,
        name: phys.ref,
        arn: phys.attrs.Arn!,
        codeDir: join(f.stack.dir, asset),
        handler: String(p.Handler ?? 'index.handler'),
        environment: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
        timeoutSeconds: Number(p.Timeout ?? 3),
        memoryMb: Number(p.MemorySize ?? 128),
        roleId,
        roleArn,
        description: String(p.Description ?? ''),
      };
    });

  const policiesByRole = new Map<string, PolicyDocument[]>();
  const attach = (roleRef: unknown, doc: PolicyDocument) => {
    const id = a.findByPhysical(String(roleRef), 'AWS::IAM::Role');
    if (!id) return;
    policiesByRole.set(id, [...(policiesByRole.get(id) ?? []), doc]);
  };
  for (const r of a.resourcesOf('AWS::IAM::Role')) {
    policiesByRole.set(r.id, policiesByRole.get(r.id) ?? []);
    for (const ip of (r.resource.Properties?.Policies ?? []) as Json[]) {
      attach(a.physicalOf(r.id).ref, { name: String(ip.PolicyName), policy: res(r, ip.PolicyDocument, `${r.logicalId}.Policies`) });
    }
  }
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const pol of a.resourcesOf(type)) {
      const p = pol.resource.Properties ?? {};
      const doc = res(pol, p.PolicyDocument, `${pol.logicalId}.PolicyDocument`);
      for (const role of (res(pol, p.Roles ?? [], `${pol.logicalId}.Roles`) as unknown[]) ?? []) {
        attach(role, { name: String(p.PolicyName ?? p.ManagedPolicyName ?? pol.logicalId), policy: doc });
      }
    }
  }

  const tables: TableSpec[] = a.resourcesOf('AWS::DynamoDB::Table').map((t) => {
    const properties = res(t, t.resource.Properties ?? {}, t.logicalId) as Json;
    const ph = a.physicalOf(t.id);
    const pk = (properties.KeySchema as { AttributeName: string; KeyType: string }[]).find((k) => k.KeyType === 'HASH')!.AttributeName;
    return { id: t.id, name: ph.ref, arn: ph.attrs.Arn!, properties, partitionKey: pk };
  });
  const queues: QueueSpec[] = a.resourcesOf('AWS::SQS::Queue').map((q) => {
    const ph = a.physicalOf(q.id);
    return {
      id: q.id,
      name: ph.attrs.QueueName!,
      url: ph.ref,
      arn: ph.attrs.Arn!,
      properties: res(q, q.resource.Properties ?? {}, q.logicalId),
    };
  });
  const secrets: SecretSpec[] = a.resourcesOf('AWS::SecretsManager::Secret').map((s) => ({
    id: s.id,
    arn: a.physicalOf(s.id).ref,
    properties: res(s, s.resource.Properties ?? {}, s.logicalId),
  }));

  const buckets = a.resourcesOf('AWS::S3::Bucket').map((b) => a.physicalOf(b.id).ref);

  // HTTP API routes -> integrations -> functions.
  const integrations = new Map<string, string>();
  for (const i of a.resourcesOf('AWS::ApiGatewayV2::Integration')) {
    const p = i.resource.Properties ?? {};
    if (p.IntegrationType !== 'AWS_PROXY') continue;
    integrations.set(a.physicalOf(i.id).ref, functionByRef(res(i, p.IntegrationUri, `${i.logicalId}.IntegrationUri`)));
  }
  const routes: RouteSpec[] = [];
  let defaultRoute: string | undefined;
  for (const r of a.resourcesOf('AWS::ApiGatewayV2::Route')) {
    const p = r.resource.Properties ?? {};
    const target = String(res(r, p.Target, `${r.logicalId}.Target`));
    const fn = integrations.get(target.replace(/^integrations\//, ''));
    if (!fn) throw new Error(`Route ${p.RouteKey} targets ${target}, not a Lambda proxy integration of the assembly`);
    const key = String(p.RouteKey);
    if (key === '$default') {
      defaultRoute = fn;
      continue;
    }
    const [method, path] = key.split(' ');
    routes.push({ routeKey: key, method: method!, path: path!, functionId: fn });
  }

  const eventSources: EventSourceSpec[] = a.resourcesOf('AWS::Lambda::EventSourceMapping').map((m) => {
    const p = res(m, m.resource.Properties ?? {}, m.logicalId) as Json;
    const common = {
      functionId: functionByRef(p.FunctionName),
      reportBatchItemFailures: ((p.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures'),
      enabled: p.Enabled !== false,
    };
    const queueId = a.findByPhysical(String(p.EventSourceArn), 'AWS::SQS::Queue');
    if (queueId) {
      return {
        ...common,
        queueId,
        batchSize: Number(p.BatchSize ?? 10),
        maxConcurrency: p.ScalingConfig?.MaximumConcurrency ? Number(p.ScalingConfig.MaximumConcurrency) : undefined,
      };
    }
    // A table's stream: its ARN is the table's StreamArn attribute.
    const tableId = a.findByPhysical(String(p.EventSourceArn), 'AWS::DynamoDB::Table');
    if (!tableId) throw new Error(`Event source ${m.id}: ${p.EventSourceArn} is not a queue or a table stream of the assembly`);
    return {
      ...common,
      tableId,
      batchSize: Number(p.BatchSize ?? 100),
      stream: {
        arn: String(p.EventSourceArn),
        startingPosition: p.StartingPosition === 'LATEST' ? 'LATEST' : 'TRIM_HORIZON',
        parallelizationFactor: Number(p.ParallelizationFactor ?? 1),
        // CloudFormation's default (-1) retries until the record expires: a bounded number locally.
        maximumRetryAttempts:
          p.MaximumRetryAttempts === undefined || Number(p.MaximumRetryAttempts) < 0 ? 10_000 : Number(p.MaximumRetryAttempts),
        bisectBatchOnError: p.BisectBatchOnFunctionError === true,
        filters: ((p.FilterCriteria?.Filters ?? []) as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern) as unknown),
        onFailure: p.DestinationConfig?.OnFailure?.Destination ? String(p.DestinationConfig.OnFailure.Destination) : undefined,
      },
    };
  });

  const schedules: ScheduleSpec[] = a.resourcesOf('AWS::Scheduler::Schedule').map((s) => {
    const p = res(s, s.resource.Properties ?? {}, s.logicalId) as Json;
    const roleId = p.Target?.RoleArn ? a.findByPhysical(String(p.Target.RoleArn), 'AWS::IAM::Role') : undefined;
    return {
      name: String(p.Name ?? s.logicalId),
      expression: String(p.ScheduleExpression),
      functionId: functionByRef(p.Target.Arn),
      input: String(p.Target.Input ?? '{}'),
      roleId,
      enabled: p.State !== 'DISABLED',
    };
  });

  return { assembly: a, functions, policiesByRole, tables, queues, secrets, buckets, routes, defaultRoute, eventSources, schedules };
}
