import { Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { NOT_FOUND_HANDLER, routeKey, type Route } from '../functions/routes';
import { profileFor, type AccessRoles } from './access';
import { appFunction, roleFor, seconds } from './lambda';
import { pascal, type StageName } from './settings';

export interface FunctionSettings {
  stage: StageName;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

export interface ApiProps extends FunctionSettings {
  roles: AccessRoles;
}

export interface RouteFunction {
  route: Route;
  fn: LambdaFunction;
}

/** Construct id of a handler module: `api/recurring/list` -> `RecurringList`. */
export const functionIdOf = (handler: string): string => pascal(handler.replace(/^api\//, ''));

/** Access-log line (HTTP API context variables; no headers, so no keys are logged). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTimeEpoch',
    ip: '$context.identity.sourceIp',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    userAgent: '$context.identity.userAgent',
  }),
);

/**
 * The HTTP API itself: the API, its `$default` stage with access logs, and `$default` -> the
 * not-found handler. Its routes are added by `RouteFunctions` in the route stacks.
 */
export class HttpApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly notFound: LambdaFunction;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    acknowledgeAppAuth(this);
    const fnProps = routeFunctionProps(props);

    this.notFound = appFunction(this, 'NotFound', {
      ...fnProps,
      handler: NOT_FOUND_HANDLER,
      description: `idpay ${props.stage}: $default (functions/${NOT_FOUND_HANDLER}.ts)`,
      role: roleFor(this, props.roles.forRoute('public')),
      memorySize: 256,
    });

    this.api = new apigw.HttpApi(this, 'HttpApi', {
      apiName: `idpay-${props.stage}`,
      description: `idpay ${props.stage} API (routes from functions/routes.ts)`,
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', this.notFound),
    });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new apigw.LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
      // A ceiling that protects Lambda concurrency; per-key limits are enforced by the app.
      throttle: { rateLimit: 1000, burstLimit: 2000 },
    });
  }

  get url(): string {
    return this.stage.url;
  }
}

/** cdk-nag APIG4 (no API Gateway authorizer) on the API and on every route stack's routes. */
function acknowledgeAppAuth(scope: Construct): void {
  Validations.of(scope).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'Authentication is the API key of DESIGN 6.1, checked by every handler (SHA-256 hash lookup, stage check, participant kind from the route table); IAM or JWT authorizers do not fit bearer API keys, and the public routes (docs, $default 404) need none.',
  });
}

/** API Gateway waits at most 30 s; handlers are meant to answer in well under a second. */
const routeFunctionProps = (props: FunctionSettings) => ({
  environment: props.environment,
  logRetention: props.logRetention,
  logRemovalPolicy: props.logRemovalPolicy,
  timeout: seconds(15),
});

export interface RouteFunctionsProps extends FunctionSettings {
  api: apigw.HttpApi;
  roles: AccessRoles;
  routes: Route[];
}

/**
 * One Lambda and one API Gateway route per entry of `routes` (a slice of the route table),
 * added to an HTTP API that may live in another stack. The functions use the shared role of
 * their access profile (access.ts) through `roleFor` (lib/lambda.ts).
 */
export class RouteFunctions extends Construct {
  readonly routes: RouteFunction[] = [];

  constructor(scope: Construct, id: string, props: RouteFunctionsProps) {
    super(scope, id);
    acknowledgeAppAuth(this);
    const fnProps = routeFunctionProps(props);
    for (const route of props.routes) {
      const fnId = functionIdOf(route.handler);
      const fn = appFunction(this, fnId, {
        ...fnProps,
        handler: route.handler,
        description: `idpay ${props.stage}: ${routeKey(route)} (functions/${route.handler}.ts)`,
        role: roleFor(this, props.roles.forRoute(profileFor(route))),
      });
      new apigw.HttpRoute(this, `${fnId}Route`, {
        httpApi: props.api,
        routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${fnId}Integration`, fn),
      });
      this.routes.push({ route, fn });
    }
  }
}
