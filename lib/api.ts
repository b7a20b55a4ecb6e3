import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { NOT_FOUND_HANDLER, routeKey, routesFor, type Route } from '../functions/routes';
import { profileFor, type AccessRoles } from './access';
import { appFunction, seconds } from './lambda';
import { pascal, type StageName } from './settings';

export interface ApiProps {
  stage: StageName;
  roles: AccessRoles;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

export interface RouteFunction {
  route: Route;
  fn: NodejsFunction;
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
 * The HTTP API: one route and one Lambda per entry of `routesFor(stage)` (functions/routes.ts,
 * the only list of routes), and `$default` -> the not-found handler.
 */
export class HttpApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly routes: RouteFunction[] = [];
  readonly notFound: NodejsFunction;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const fnProps = {
      environment: props.environment,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      // API Gateway waits at most 30 s; handlers are meant to answer in well under a second.
      timeout: seconds(15),
    };

    this.notFound = appFunction(this, 'NotFound', {
      ...fnProps,
      handler: NOT_FOUND_HANDLER,
      description: `idpay ${props.stage}: $default (functions/${NOT_FOUND_HANDLER}.ts)`,
      role: props.roles.forRoute('public'),
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

    for (const route of routesFor(props.stage)) {
      const id = functionIdOf(route.handler);
      const fn = appFunction(this, id, {
        ...fnProps,
        handler: route.handler,
        description: `idpay ${props.stage}: ${routeKey(route)} (functions/${route.handler}.ts)`,
        role: props.roles.forRoute(profileFor(route)),
      });
      new apigw.HttpRoute(this, `${id}Route`, {
        httpApi: this.api,
        routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${id}Integration`, fn),
      });
      this.routes.push({ route, fn });
    }
  }

  get url(): string {
    return this.stage.url;
  }
}
