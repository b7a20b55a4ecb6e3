import { existsSync, readdirSync } from 'node:fs';
import { dashboardCsp, HSTS_SECONDS } from './dashboard-headers';
import { isAbsolute, join } from 'node:path';
import { Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { PROJECT_ROOT } from './lambda';
import { EDGE_SETTINGS, type StageName } from './settings';

/** Where the dashboard lives on the distribution (Vite builds it with `base: '/dashboard/'`). */
export const DASHBOARD_PATH = '/dashboard/';
/** Key prefix of the app in its bucket: the request path maps to the key as is. */
export const DASHBOARD_PREFIX = 'dashboard/';
/** The runtime configuration the app fetches at start (one build serves every stage). */
export const DASHBOARD_CONFIG_KEY = 'config.json';

/** The dashboard's runtime configuration, `/dashboard/config.json`. */
export interface DashboardConfig {
  region: string;
  userPoolId: string;
  userPoolClientId: string;
  stage: StageName;
}

/** Two years, as the HSTS preload list asks (the one figure lib/dashboard-headers.ts also serves locally). */
export const HSTS_MAX_AGE = Duration.seconds(HSTS_SECONDS);

/** The dashboard's CSP (lib/dashboard-headers.ts), with Cognito's regional endpoint for sign-in. */
export const cognitoCsp = (cognitoRegion: string) => dashboardCsp(`https://cognito-idp.${cognitoRegion}.amazonaws.com`);

/**
 * The viewer-request function of the dashboard's behaviours (CloudFront Functions, JS 2.0):
 * - `/` and `/dashboard` redirect (302) to `/dashboard/`;
 * - under `/dashboard/`, a path whose last segment has no extension is a route of the
 *   single-page app: it is served `/dashboard/index.html` (a file, e.g. `assets/x.js` or
 *   `config.json`, is served as is);
 * - any other path (the default behaviour: neither `/dashboard/*` nor `/v1/*`) is 404.
 * A function rather than the distribution's error responses, which would also rewrite the
 * API's own 403/404 answers under `/v1/*`.
 */
export const SPA_FUNCTION_CODE = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '/dashboard') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${DASHBOARD_PATH}' } } };
  }
  if (uri.indexOf('${DASHBOARD_PATH}') !== 0) {
    return { statusCode: 404, statusDescription: 'Not Found', headers: { 'content-type': { value: 'text/plain; charset=utf-8' } }, body: { encoding: 'text', data: 'Not found' } };
  }
  var last = uri.substring(uri.lastIndexOf('/') + 1);
  if (last.indexOf('.') === -1) {
    request.uri = '${DASHBOARD_PATH}index.html';
  }
  return request;
}
`;

const JSON_429 = JSON.stringify({ statusCode: 429, success: false, message: 'Too many requests', code: 'rate_limited' });

export interface WebFirewallProps {
  stage: StageName;
}

/**
 * The AWS WAF web ACL in front of the dashboard's distribution (scope CLOUDFRONT, so its stack
 * must be in us-east-1): a rate-based rule per client IP (EDGE_SETTINGS), then AWS's managed
 * known-bad-inputs and common rule sets. Everything else is allowed. Every rule reports
 * CloudWatch metrics and keeps sampled requests.
 */
export class WebFirewall extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: WebFirewallProps) {
    super(scope, id);
    const { stage } = props;
    const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `idpay-${stage}-${metricName}`,
    });
    const managed = (name: string, priority: number): wafv2.CfnWebACL.RuleProperty => ({
      name,
      priority,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
      overrideAction: { none: {} },
      visibilityConfig: visibility(name),
    });
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      name: `idpay-${stage}-edge`,
      description: `idpay ${stage} - the dashboard distribution and /v1 through it`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('edge'),
      // A flood answered like the API's own rate limit (DESIGN 6.3), so clients (the SDK) back off.
      customResponseBodies: { 'rate-limited': { contentType: 'APPLICATION_JSON', content: JSON_429 } },
      rules: [
        {
          name: 'rate-per-ip',
          priority: 0,
          statement: {
            rateBasedStatement: { limit: EDGE_SETTINGS[stage].wafRequestsPer5MinPerIp, evaluationWindowSec: 300, aggregateKeyType: 'IP' },
          },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'rate-limited',
                responseHeaders: [{ name: 'retry-after', value: '60' }],
              },
            },
          },
          visibilityConfig: visibility('rate-per-ip'),
        },
        managed('AWSManagedRulesKnownBadInputsRuleSet', 1),
        managed('AWSManagedRulesCommonRuleSet', 2),
      ],
    });
  }
}

export interface DashboardSiteProps {
  stage: StageName;
  /** `https://<id>.execute-api.<region>.amazonaws.com` (the HTTP API's ApiEndpoint). */
  apiEndpoint: string;
  /** ARN of the CLOUDFRONT web ACL (WebFirewall). */
  webAclArn: string;
  userPoolId: string;
  userPoolClientId: string;
  /** Custom domain and its us-east-1 certificate (else the distribution's own name). */
  domain?: { name: string; certificateArn: string };
  /** The app's build folder; deployed only when given and holding `index.html`. */
  dist?: string;
}

/**
 * The dashboard on AWS (DESIGN 8.4): a private bucket served only through a CloudFront
 * distribution (Origin Access Control), which also routes `/v1/*` to the HTTP API, so the app
 * and the API share one origin (no CORS). Security headers on the app, a WAF web ACL on all.
 */
export class DashboardSite extends Construct {
  readonly bucket: s3.Bucket;
  readonly logBucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly headers: cloudfront.ResponseHeadersPolicy;
  /** The deployments of the build (assets, then index.html + config.json); [] without a build. */
  readonly deployments: s3deploy.BucketDeployment[] = [];
  /** The config the app reads; tokens resolve at deploy time. */
  readonly config: DashboardConfig;
  readonly url: string;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id);
    const { stage } = props;
    const live = stage === 'live';
    const removalPolicy = live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // The pool id is `<region>_<id>`: the pool's own region, wherever this stack is.
    const cognitoRegion = Fn.select(0, Fn.split('_', props.userPoolId));

    // CloudFront standard logs (need ACLs: ObjectOwnership BucketOwnerPreferred) and the app
    // bucket's server access logs.
    this.logBucket = new s3.Bucket(this, 'Logs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      enforceSSL: true,
      lifecycleRules: [{ id: 'expire-logs', expiration: Duration.days(live ? 365 : 30) }],
      removalPolicy,
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "This is the log bucket of the edge (CloudFront standard logs, the dashboard bucket's access logs); logging its own access would need yet another bucket.",
    });

    this.bucket = new s3.Bucket(this, 'App', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 's3-app/',
      removalPolicy,
    });

    this.headers = new cloudfront.ResponseHeadersPolicy(this, 'DashboardHeaders', {
      comment: `idpay ${stage}: security headers of the dashboard`,
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: cognitoCsp(cognitoRegion), override: true },
        strictTransportSecurity: { accessControlMaxAge: HSTS_MAX_AGE, includeSubdomains: true, preload: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
      },
    });
    // The API's responses keep their own headers; the edge adds transport security only.
    const apiHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: `idpay ${stage}: transport security headers of /v1 through the distribution`,
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: HSTS_MAX_AGE, includeSubdomains: true, preload: true, override: true },
        contentTypeOptions: { override: true },
      },
    });

    const spa = new cloudfront.Function(this, 'SpaRouting', {
      comment: `idpay ${stage}: dashboard routes to index.html, / to /dashboard/`,
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      code: cloudfront.FunctionCode.fromInline(SPA_FUNCTION_CODE),
    });
    const appBehavior: cloudfront.BehaviorOptions = {
      origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: this.headers,
      compress: true,
      functionAssociations: [{ function: spa, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
    };
    // `https://<host>/` -> `<host>`: the API's default endpoint, reached over TLS 1.2 only.
    const apiHost = Fn.select(2, Fn.split('/', props.apiEndpoint));
    const apiBehavior: cloudfront.BehaviorOptions = {
      origin: new origins.HttpOrigin(apiHost, {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        // API Gateway gives up at 30 s; so does the origin.
        readTimeout: Duration.seconds(30),
      }),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      // Never cached. With caching disabled, the all-viewer origin request policy may carry
      // Authorization (and every other header but Host, which must be the API's own name),
      // query strings and cookies to the API.
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: apiHeaders,
      compress: true,
    };

    const domain = props.domain;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `idpay ${stage}: dashboard and API`,
      defaultBehavior: appBehavior,
      additionalBehaviors: { '/v1/*': apiBehavior, [`${DASHBOARD_PATH}*`]: appBehavior },
      webAclId: props.webAclArn,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_ALL,
      enableIpv6: true,
      ...(domain
        ? {
            domainNames: [domain.name],
            certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'No geo restriction: participants and their teams sign in from wherever they work; the WAF rate rule and managed rules guard the edge instead.',
    });
    if (!domain) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Without a custom domain (-c dashboardDomain, -c dashboardCertificateArn) the distribution uses its *.cloudfront.net name, for which CloudFront fixes the TLSv1 security policy; with one, the minimum is TLSv1.2_2021. The origins are reached over TLS 1.2 only.',
      });
    }

    const host = domain?.name ?? this.distribution.distributionDomainName;
    this.url = `https://${host}${DASHBOARD_PATH}`;
    this.config = { region: cognitoRegion, userPoolId: props.userPoolId, userPoolClientId: props.userPoolClientId, stage };

    if (props.dist && existsSync(join(props.dist, 'index.html'))) this.deploy(props.dist, live);
  }

  /**
   * The build to `dashboard/` in two steps: first the hashed files of `assets/` (cached for a
   * year, immutable), then the rest of the build with index.html and config.json (revalidated
   * on every load), so an index.html never names an asset that is not there yet. Each step
   * prunes only its own part. The distribution's cache of the app is invalidated after.
   */
  private deploy(dist: string, live: boolean): void {
    // The deployment's function (one for both steps): its own role and log group, so its
    // log permission names that group (not the AWS managed basic execution policy).
    const logGroup = new logs.LogGroup(this, 'DeployLogs', {
      retention: live ? logs.RetentionDays.ONE_YEAR : logs.RetentionDays.ONE_MONTH,
      removalPolicy: live ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(this, 'DeployRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Copies the dashboard build into its bucket and invalidates the distribution (BucketDeployment)',
    });
    logGroup.grantWrite(role);
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket);
    const s3Reason =
      "BucketDeployment's own grants (aws s3 sync with --delete): read of the CDK asset bucket's staged zip, read/write/delete of the app bucket's objects; the action wildcards are CDK's grant sets (grantRead/grantReadWrite).";
    Validations.of(role).acknowledge(
      ...['Action::s3:GetBucket*', 'Action::s3:GetObject*', 'Action::s3:List*', 'Action::s3:Abort*', 'Action::s3:DeleteObject*'].map(
        (w) => ({
          id: `AwsSolutions-IAM5[${w}]`,
          reason: s3Reason,
        }),
      ),
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        reason: s3Reason,
      },
      { id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`, reason: `${s3Reason} Only this stage's dashboard bucket.` },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          "cloudfront:CreateInvalidation/GetInvalidation as BucketDeployment grants them (on '*'); the function only invalidates this stage's distribution, whose id is its only input.",
      },
    );
    const common = {
      destinationBucket: this.bucket,
      // Live keeps what was deployed if the stack goes; sandbox empties the bucket with it.
      retainOnDelete: live,
      memoryLimit: 512,
      role,
      logGroup,
    };
    const assetsDir = join(dist, 'assets');
    let assets: s3deploy.BucketDeployment | undefined;
    if (existsSync(assetsDir) && readdirSync(assetsDir).length > 0) {
      assets = new s3deploy.BucketDeployment(this, 'DeployAssets', {
        ...common,
        sources: [s3deploy.Source.asset(assetsDir)],
        destinationKeyPrefix: `${DASHBOARD_PREFIX}assets/`,
        cacheControl: [
          s3deploy.CacheControl.setPublic(),
          s3deploy.CacheControl.maxAge(Duration.days(365)),
          s3deploy.CacheControl.immutable(),
        ],
      });
      this.deployments.push(assets);
    }
    const app = new s3deploy.BucketDeployment(this, 'DeployApp', {
      ...common,
      sources: [
        s3deploy.Source.asset(dist, { exclude: ['assets', 'assets/**'] }),
        s3deploy.Source.jsonData(DASHBOARD_CONFIG_KEY, this.config),
      ],
      destinationKeyPrefix: DASHBOARD_PREFIX,
      // The assets step owns dashboard/assets/: not pruned here.
      exclude: ['assets/*'],
      cacheControl: [s3deploy.CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: [`${DASHBOARD_PATH}*`],
    });
    if (assets) app.node.addDependency(assets);
    this.deployments.push(app);
    // The function itself is a singleton at the stack's top level.
    for (const c of Stack.of(this).node.children.filter((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'))) {
      Validations.of(c).acknowledge({
        id: 'AwsSolutions-L1',
        reason:
          "BucketDeployment's handler runs the Python runtime aws-cdk-lib pins for it (with the AWS CLI layer); it moves with aws-cdk-lib upgrades, not here.",
      });
    }
  }
}

/** Where `cdk synth` looks for the build unless `-c dashboardDist=<folder>` says otherwise. */
export const DEFAULT_DASHBOARD_DIST = 'dashboard/dist';

/** A build folder setting, relative to the project root unless absolute. */
export function dashboardDistOf(setting: string): string {
  return isAbsolute(setting) ? setting : join(PROJECT_ROOT, setting);
}
