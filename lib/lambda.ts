import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildSync, type BuildOptions } from 'esbuild';
import { WORKERS } from '../functions/platform/definitions';
import { NOT_FOUND_HANDLER, ROUTES } from '../functions/routes';

/** Repository root (this file lives in lib/). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `api/recurring/list` -> <root>/functions/api/recurring/list.ts */
export const entryOf = (handlerModule: string): string => join(PROJECT_ROOT, 'functions', `${handlerModule}.ts`);

/**
 * ESM output needs `require` for the CommonJS parts of bundled dependencies (parts of the
 * AWS SDK and its deps). Aliased so it cannot clash with a bundled `createRequire` import.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __idpayCreateRequire } from 'node:module'; const require = __idpayCreateRequire(import.meta.url);";

/** Modules taken from the Lambda runtime's own AWS SDK instead of the bundle (see below). */
export const RUNTIME_PROVIDED_MODULES = [
  '@aws-sdk/client-secrets-manager',
  // E-mail (invitations, people's notices): imported on the first message (platform/mail.ts);
  // bundled it took the two routes that send mail to ~510 KB.
  '@aws-sdk/client-sesv2',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/nested-clients',
  '@aws-sdk/token-providers',
  '@smithy/credential-provider-imds',
  // Event-stream serde, ~19 KB in every SDK bundle with what only it uses (bench run of
  // 2026-11-28 19:06; docs/decisions/bundle-budget.md). @smithy/core's protocols import it
  // lazily, only for an operation with an event-stream member. None of the operations the
  // functions call (DynamoDB, SQS) has one, so it is never loaded; the runtime's SDK has it if
  // one ever were.
  '@smithy/core/event-streams',
];

/**
 * Packages left out of the bundle and shipped beside it instead, in the asset's own
 * `node_modules/`, because they are loaded lazily (dynamic `import()`) on a path most
 * invocations never take: aws-jwt-verify verifies people's access tokens
 * (functions/identity/tokens.ts) and has no dependencies. Machine traffic (API keys) never
 * loads it, and it does not count against a handler's 400 KB bundle. Only its ESM build is
 * shipped (what `import` resolves to).
 */
export const SHIPPED_BESIDE_MODULES = ['aws-jwt-verify'];

/**
 * How every function is bundled (the deploy's build and the bench's): one esbuild bundle per
 * handler, minified ESM `.mjs` for Node 24 with a linked source map (no sources content), the
 * AWS SDK v3 data-path clients bundled (not taken from the runtime) so their version is the
 * one in package-lock.json. Left to the runtime's SDK: credential providers a Lambda never
 * reaches (its credentials come from the environment, the first link of the chain), Secrets
 * Manager (read once per instance at cold start) and SES (mail, loaded on the first message).
 * Keeps every bundle under 400 KB.
 */
export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  external: [...RUNTIME_PROVIDED_MODULES, ...SHIPPED_BESIDE_MODULES],
  banner: { js: ESM_REQUIRE_BANNER },
  logLevel: 'warning',
} satisfies BuildOptions;

/** Every function's handler module (under functions/): each route's, `$default`'s, each worker's. */
export function handlerModules(): string[] {
  return [...new Set([...ROUTES.map((r) => r.handler), NOT_FOUND_HANDLER, ...WORKERS.map((w) => w.handler)])];
}

/**
 * Where this synth builds the bundles: `.build.<pid>/<handler with dashes>/index.mjs`, two
 * folders below the project root, so their maps name sources as `../../functions/...` and
 * `../../node_modules/...`; the synth copies each folder into the assembly, and the folder
 * goes when the process ends (two synths at once never share one).
 */
const BUILD_DIR = join(PROJECT_ROOT, `.build.${process.pid}`);
const bundleDirOf = (handler: string) => join(BUILD_DIR, handler.replaceAll('/', '-'));

let bundlesBuilt = false;

/**
 * Builds every function's bundle in ONE esbuild run (once per synth: ~11 s for all of them,
 * where a bundling per function took ~110 s per stage), each into a folder of its own that
 * becomes the function's asset. API handlers get the shipped-beside packages copied into
 * their folder's node_modules/.
 */
export function buildFunctionBundles(): void {
  if (bundlesBuilt) return;
  const handlers = handlerModules();
  rmSync(BUILD_DIR, { recursive: true, force: true });
  process.once('exit', () => rmSync(BUILD_DIR, { recursive: true, force: true }));
  buildSync({
    ...LAMBDA_BUILD_OPTIONS,
    entryPoints: Object.fromEntries(handlers.map((h) => [`${h.replaceAll('/', '-')}/index`, entryOf(h)])),
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
  });
  for (const h of handlers.filter((x) => x.startsWith('api/'))) {
    for (const m of SHIPPED_BESIDE_MODULES) {
      const from = join(PROJECT_ROOT, 'node_modules', m);
      const to = join(bundleDirOf(h), 'node_modules', m);
      mkdirSync(join(to, 'dist'), { recursive: true });
      cpSync(join(from, 'package.json'), join(to, 'package.json'));
      cpSync(join(from, 'dist', 'esm'), join(to, 'dist', 'esm'), { recursive: true });
    }
  }
  bundlesBuilt = true;
}

/** The code of a function: its bundle's folder, or, where the synth skips bundling (template tests), a stub. */
function codeOf(scope: Construct, handler: string): Code {
  if (!Stack.of(scope).bundlingRequired) {
    const stub = join(tmpdir(), 'idpay-lambda-not-bundled');
    if (!existsSync(join(stub, 'index.mjs'))) {
      mkdirSync(stub, { recursive: true });
      writeFileSync(join(stub, 'index.mjs'), 'export const handler = () => { throw new Error("not bundled"); };\n');
    }
    return Code.fromAsset(stub);
  }
  buildFunctionBundles();
  return Code.fromAsset(bundleDirOf(handler));
}

export interface AppFunctionProps {
  /** Module under functions/ (no extension) exporting `handler`. */
  handler: string;
  description: string;
  role: iam.IRole;
  environment: Record<string, string>;
  timeout: Duration;
  memorySize?: number;
  logRetention: logs.RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

/**
 * Every Lambda of the app: Node 24 on arm64, its bundle built with every other function's in
 * one esbuild run (buildFunctionBundles, LAMBDA_BUILD_OPTIONS), its own log group with a retention, and a role
 * shared with the functions of the same access profile (see access.ts). The role may write
 * only to this function's log group, granted here.
 */
export function appFunction(scope: Construct, id: string, props: AppFunctionProps): LambdaFunction {
  const entry = entryOf(props.handler);
  if (!existsSync(entry)) {
    throw new Error(`Handler module functions/${props.handler}.ts does not exist (construct ${id})`);
  }
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    removalPolicy: props.logRemovalPolicy,
  });
  const fn = new LambdaFunction(scope, id, {
    code: codeOf(scope, props.handler),
    handler: 'index.handler',
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize ?? 512,
    timeout: props.timeout,
    description: props.description.slice(0, 256),
    role: props.role,
    logGroup,
    // JSON log format: the runtime's own lines (START, END, REPORT) as JSON too; the app
    // writes its JSON lines straight to stdout (functions/platform/log.ts) and filters by
    // LOG_LEVEL itself.
    loggingFormat: LoggingFormat.JSON,
    // Active X-Ray tracing from the Lambda service (init, invocation and overhead segments,
    // the trace id on every log line), without an X-Ray SDK in the bundle (the SDK would take
    // the handlers over the 400 KB budget: docs/decisions/observability.md).
    tracing: Tracing.ACTIVE,
    applicationLogLevelV2: ApplicationLogLevel.INFO,
    // INFO, not WARN: WARN would drop the ~600 B of START/END/REPORT per invocation, but no
    // source found says a timeout's or crash's REPORT is still written at WARN, and that line is
    // the log's only trace of a timeout (docs/decisions/platform-log-level.md).
    systemLogLevelV2: SystemLogLevel.INFO,
    // No NODE_OPTIONS=--enable-source-maps: Node would read and parse the map at every cold
    // start; the logger maps the stacks it writes from the map on the first error instead
    // (functions/platform/stack-map.ts, docs/decisions/bundle-budget.md).
    environment: props.environment,
  });
  logGroup.grantWrite(props.role);
  return fn;
}

export const seconds = (n: number) => Duration.seconds(n);

const importedRoles = new WeakMap<Stack, Map<iam.Role, iam.IRole>>();

/**
 * `role` as the functions of `scope`'s stack should use it. The roles live in the data stack;
 * a function elsewhere uses an import of its role, so that the grants made for it (its own log
 * group, its queue's event source) become a policy of the function's stack: the role's stack
 * never refers back to a stack that refers to it (no cycle between stacks).
 */
export function roleFor(scope: Construct, role: iam.Role): iam.IRole {
  const here = Stack.of(scope);
  if (Stack.of(role) === here) return role;
  let byRole = importedRoles.get(here);
  if (!byRole) importedRoles.set(here, (byRole = new Map()));
  let local = byRole.get(role);
  if (!local) {
    let holder = here.node.tryFindChild('ImportedRoles') as Construct | undefined;
    if (!holder) {
      holder = new Construct(here, 'ImportedRoles');
      Validations.of(holder).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing of every function) support no resource-level permissions; AWS documents Resource "*" for them. So does dynamodb:ListStreams, which the event stream consumer\'s event source mapping needs (its stream reads are on the table\'s stream ARN). No other action here has a wildcard resource (test/cdk/stack.test.ts).',
      });
    }
    local = iam.Role.fromRoleArn(holder, role.node.id, role.roleArn, { mutable: true });
    byRole.set(role, local);
  }
  return local;
}
