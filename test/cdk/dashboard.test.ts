/**
 * The dashboard on AWS (DESIGN 8.4): the CloudFront distribution and its behaviours
 * (`/v1/*` to the HTTP API, uncached, every method; `/dashboard/*` from the private bucket
 * through Origin Access Control; HTTPS only), the security headers, the WAF web ACL (in
 * us-east-1) and its association, the bucket and its policy (no public access), the build's
 * deployment with the runtime config, and the DashboardUrl output. Both stages.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Token } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_PATH, SPA_FUNCTION_CODE } from '../../lib/edge';
import { EDGE_SETTINGS, readSettings, type StageName } from '../../lib/settings';
import { edgeStackNameOf, firewallStackNameOf } from '../../lib/stack';
import { buildStage, type BuiltStage } from '../support/cdk-stage';

/** CloudFront's managed policies (their ids are fixed by AWS). */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';
const ALL_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];
const DOMAIN = 'dashboard.example.com';
const CERT = 'arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b';

type Json = Record<string, any>;

let dist: string;
const built = {} as Record<StageName, BuiltStage>;
const withBuild = {} as Record<StageName, BuiltStage>;
beforeAll(() => {
  // A stand-in for `dashboard/dist` (Vite's output: index.html, hashed assets/, public files).
  dist = mkdtempSync(join(tmpdir(), 'idpay-dashboard-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><script type="module" src="/dashboard/assets/index-a1b2c3.js"></script>');
  writeFileSync(join(dist, 'assets', 'index-a1b2c3.js'), 'console.log("dashboard")');
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  for (const stage of ['sandbox', 'live'] as const) {
    built[stage] = buildStage(stage);
    withBuild[stage] = buildStage(stage, {
      nag: true,
      dashboardDist: dist,
      ...(stage === 'live' ? { dashboardDomain: { name: DOMAIN, certificateArn: CERT } } : {}),
    });
  }
});
afterAll(() => rmSync(dist, { recursive: true, force: true }));

const ofType = (b: BuiltStage, type: string) => Object.entries(b.resources).filter(([, r]) => r.Type === type) as [string, Json][];
const one = (b: BuiltStage, type: string): [string, Json] => {
  const found = ofType(b, type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const distributionOf = (b: BuiltStage) => b.resources[b.idOf(b.stage.site.distribution)]!.Properties.DistributionConfig as Json;
const behaviourOf = (b: BuiltStage, pattern: string) => {
  const config = distributionOf(b);
  const found = (config.CacheBehaviors as Json[]).find((c) => c.PathPattern === pattern);
  expect(found, pattern).toBeDefined();
  return found!;
};
const originOf = (b: BuiltStage, behaviour: Json) => (distributionOf(b).Origins as Json[]).find((o) => o.Id === behaviour.TargetOriginId)!;
/** A `Fn::Join` with '' as a string, tokens rendered as JSON (to look for literal parts). */
const joined = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : (v as Json)['Fn::Join']
      ? ((v as Json)['Fn::Join'][1] as unknown[]).map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('')
      : JSON.stringify(v);

/** Runs the viewer-request function as CloudFront would, on one URI. */
const spa = new Function(`${SPA_FUNCTION_CODE}; return handler;`)() as (e: { request: { uri: string } }) => Json;
const viewerRequest = (uri: string) => spa({ request: { uri, method: 'GET', headers: {}, querystring: {} } as never });

describe.each(['sandbox', 'live'] as const)('%s stage', (stage) => {
  const b = () => built[stage];

  it('puts the web ACL in a stack pinned to us-east-1 and the distribution in an environment-agnostic edge stack', () => {
    expect(b().stage.firewallStack.stackName).toBe(firewallStackNameOf(stage));
    expect(b().stage.firewallStack.region).toBe('us-east-1');
    expect(b().stage.edge.stackName).toBe(edgeStackNameOf(stage));
    expect(Token.isUnresolved(b().stage.edge.region)).toBe(true);
    expect(Object.values<Json>(b().templates[firewallStackNameOf(stage)]!.Resources).map((r) => r.Type)).toEqual(['AWS::WAFv2::WebACL']);
  });

  it('routes /v1/* to the HTTP API: every method, caching disabled, all viewer headers but Host, TLS 1.2 to the origin', () => {
    const v1 = behaviourOf(b(), '/v1/*');
    expect([...v1.AllowedMethods].sort()).toEqual(ALL_METHODS);
    expect(v1.CachePolicyId).toBe(CACHING_DISABLED);
    // Authorization reaches the API: with caching disabled the all-viewer policy forwards it.
    expect(v1.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(v1.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(v1.FunctionAssociations).toBeUndefined();
    const origin = originOf(b(), v1);
    // The host of the API's own endpoint (https://<id>.execute-api.<region>.amazonaws.com).
    expect(origin.DomainName).toEqual({
      'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': [b().idOf(b().stage.api.api), 'ApiEndpoint'] }] }],
    });
    expect(origin.CustomOriginConfig).toEqual({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
      OriginReadTimeout: 30,
    });
    expect(origin.S3OriginConfig).toBeUndefined();
  });

  it('serves /dashboard/* and the root from the private bucket through Origin Access Control, with the SPA function and security headers', () => {
    const config = distributionOf(b());
    const [oacId, oac] = one(b(), 'AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const [fnId, fn] = one(b(), 'AWS::CloudFront::Function');
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(fn.Properties.FunctionCode).toBe(SPA_FUNCTION_CODE);
    const headersId = b().idOf(b().stage.site.headers);
    for (const behaviour of [behaviourOf(b(), '/dashboard/*'), config.DefaultCacheBehavior as Json]) {
      expect(behaviour.ViewerProtocolPolicy).toBe('redirect-to-https');
      expect(behaviour.AllowedMethods).toEqual(['GET', 'HEAD']);
      expect(behaviour.CachePolicyId).toBe(CACHING_OPTIMIZED);
      expect(behaviour.ResponseHeadersPolicyId).toEqual({ Ref: headersId });
      expect(behaviour.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fnId, 'FunctionARN'] } },
      ]);
      const origin = originOf(b(), behaviour);
      expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [b().idOf(b().stage.site.bucket), 'RegionalDomainName'] });
      expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
      expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    }
    // SPA fallback by the function, not by error responses (which would rewrite the API's 403/404).
    expect(config.CustomErrorResponses).toBeUndefined();
    expect(config.DefaultRootObject).toBeUndefined();
  });

  it('is HTTPS only with HTTP/2 and HTTP/3, IPv6, logged; on its own name CloudFront fixes the TLS policy', () => {
    const config = distributionOf(b());
    const all = [config.DefaultCacheBehavior, ...config.CacheBehaviors] as Json[];
    expect(all).toHaveLength(3);
    for (const behaviour of all) expect(behaviour.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.HttpVersion).toBe('http2and3');
    expect(config.IPV6Enabled).toBe(true);
    expect(config.Enabled).toBe(true);
    expect(config.Logging).toEqual({
      Bucket: { 'Fn::GetAtt': [b().idOf(b().stage.site.logBucket), 'RegionalDomainName'] },
      Prefix: 'cloudfront/',
    });
    expect(config.Aliases).toBeUndefined();
    expect(config.ViewerCertificate).toBeUndefined();
  });

  it('sends the dashboard security headers: CSP (frame-ancestors none, Cognito), HSTS two years with preload, nosniff, DENY, referrer policy', () => {
    const policy = b().resources[b().idOf(b().stage.site.headers)]!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig as Json;
    expect(policy.ContentSecurityPolicy.Override).toBe(true);
    const csp = joined(policy.ContentSecurityPolicy.ContentSecurityPolicy);
    const directives = csp.split(';').map((d) => d.trim());
    expect(directives).toEqual(
      expect.arrayContaining(["default-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'"]),
    );
    // connect-src: same origin (the API is /v1 here) and the user pool's Cognito endpoint, in
    // the pool's own region (the first part of its id).
    const connect = directives.find((d) => d.startsWith('connect-src'))!;
    expect(connect.startsWith("connect-src 'self' https://cognito-idp.")).toBe(true);
    expect(connect.endsWith('.amazonaws.com')).toBe(true);
    expect(connect).toContain(JSON.stringify({ 'Fn::Select': [0, { 'Fn::Split': ['_', { Ref: b().idOf(b().stage.people.userPool) }] }] }));
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(policy.StrictTransportSecurity).toEqual({
      AccessControlMaxAgeSec: 63_072_000,
      IncludeSubdomains: true,
      Preload: true,
      Override: true,
    });
    expect(policy.ContentTypeOptions).toEqual({ Override: true });
    expect(policy.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(policy.ReferrerPolicy).toEqual({ ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true });
    // /v1 through the edge gets transport security too (the API sets its own other headers).
    const api = behaviourOf(b(), '/v1/*');
    const apiPolicy = b().resources[api.ResponseHeadersPolicyId.Ref]!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig as Json;
    expect(apiPolicy.StrictTransportSecurity.AccessControlMaxAgeSec).toBe(63_072_000);
    expect(apiPolicy.ContentSecurityPolicy).toBeUndefined();
  });

  it('has a WAF web ACL (CLOUDFRONT): a per-IP rate rule with the stage limit, then the managed known-bad-inputs and common rules', () => {
    const [aclId, acl] = one(b(), 'AWS::WAFv2::WebACL');
    expect(b().stackOfId(aclId)).toBe(firewallStackNameOf(stage));
    const p = acl.Properties;
    expect(p.Scope).toBe('CLOUDFRONT');
    expect(p.DefaultAction).toEqual({ Allow: {} });
    const rules = [...(p.Rules as Json[])].sort((x, y) => x.Priority - y.Priority);
    expect(rules.map((r) => r.Name)).toEqual(['rate-per-ip', 'AWSManagedRulesKnownBadInputsRuleSet', 'AWSManagedRulesCommonRuleSet']);
    const [rate, bad, common] = rules as [Json, Json, Json];
    expect(rate.Statement.RateBasedStatement).toEqual({
      Limit: EDGE_SETTINGS[stage].wafRequestsPer5MinPerIp,
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 300,
    });
    expect(rate.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, CustomResponseBodyKey: 'rate-limited' });
    expect(JSON.parse(p.CustomResponseBodies['rate-limited'].Content)).toEqual({
      statusCode: 429,
      success: false,
      message: 'Too many requests',
      code: 'rate_limited',
    });
    for (const r of [bad, common]) {
      expect(r.Statement.ManagedRuleGroupStatement).toEqual({ VendorName: 'AWS', Name: r.Name });
      expect(r.OverrideAction).toEqual({ None: {} });
    }
    for (const v of [p.VisibilityConfig, ...rules.map((r) => r.VisibilityConfig)]) {
      expect(v).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
    }
    expect(EDGE_SETTINGS.sandbox.wafRequestsPer5MinPerIp).toBe(2000);
  });

  it('associates the web ACL with the distribution (WebACLId), read across regions from the us-east-1 stack', () => {
    const [aclId] = one(b(), 'AWS::WAFv2::WebACL');
    expect(distributionOf(b()).WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    // In the edge stack's own template: a weak reference naming the firewall stack's region.
    const own = Object.values<Json>(b().templates[edgeStackNameOf(stage)]!.Resources).find(
      (r) => r.Type === 'AWS::CloudFront::Distribution',
    )!;
    expect(own.Properties.DistributionConfig.WebACLId).toEqual({
      'Fn::GetStackOutput': { StackName: firewallStackNameOf(stage), OutputName: 'WebAclArn', Region: 'us-east-1' },
    });
    expect(b().stage.edge.dependencies).toContain(b().stage.firewallStack);
  });

  it('keeps the bucket private: all public access blocked, no website, TLS only, read by this distribution alone', () => {
    const bucketId = b().idOf(b().stage.site.bucket);
    const bucket = b().resources[bucketId]!;
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
    expect(bucket.Properties.OwnershipControls.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    expect(bucket.Properties.LoggingConfiguration.DestinationBucketName).toEqual({ Ref: b().idOf(b().stage.site.logBucket) });
    expect(bucket.DeletionPolicy).toBe(stage === 'live' ? 'Retain' : 'Delete');

    const policies = ofType(b(), 'AWS::S3::BucketPolicy').filter(
      ([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: bucketId }),
    );
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as Json[];
    expect(statements).toHaveLength(2);
    const [deny, allow] = [statements.find((s) => s.Effect === 'Deny')!, statements.find((s) => s.Effect === 'Allow')!];
    expect(deny).toMatchObject({ Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
    expect(allow.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(allow.Action).toBe('s3:GetObject');
    expect(allow.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] });
    const sourceArn = joined(allow.Condition.StringEquals['AWS:SourceArn']);
    expect(sourceArn).toContain(':cloudfront::');
    expect(sourceArn).toContain(`:distribution/${JSON.stringify({ Ref: b().idOf(b().stage.site.distribution) })}`);
    expect(Object.keys(allow.Condition)).toEqual(['StringEquals']);
    // No statement anywhere lets an anonymous principal in.
    for (const [, p] of ofType(b(), 'AWS::S3::BucketPolicy')) {
      for (const s of p.Properties.PolicyDocument.Statement as Json[]) {
        if (s.Effect === 'Allow') expect(JSON.stringify(s.Principal)).not.toMatch(/"\*"/);
      }
    }
  });

  it('outputs the dashboard URL: https://<distribution domain>/dashboard/', () => {
    const outputs = b().templates[edgeStackNameOf(stage)]!.Outputs as Json;
    expect(outputs.DashboardUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [b().idOf(b().stage.site.distribution), 'DomainName'] }, DASHBOARD_PATH]],
    });
    expect(outputs.WebAclArn).toBeUndefined();
    expect((b().templates[firewallStackNameOf(stage)]!.Outputs as Json).WebAclArn.Value).toEqual({
      'Fn::GetAtt': [one(b(), 'AWS::WAFv2::WebACL')[0], 'Arn'],
    });
  });

  it('deploys nothing without a build (the synth succeeds without the deployment)', () => {
    expect(b().stage.site.deployments).toEqual([]);
    expect(ofType(b(), 'Custom::CDKBucketDeployment')).toEqual([]);
    expect(Object.values<Json>(b().templates[edgeStackNameOf(stage)]!.Resources).filter((r) => r.Type === 'AWS::Lambda::Function')).toEqual(
      [],
    );
  });

  describe('with a build of the dashboard', () => {
    const w = () => withBuild[stage];
    const deployments = () => ofType(w(), 'Custom::CDKBucketDeployment');
    const byPrefix = (prefix: string) => deployments().find(([, d]) => d.Properties.DestinationBucketKeyPrefix === prefix)!;

    it('passes cdk-nag AwsSolutions with no unacknowledged finding (the synth would fail otherwise)', () => {
      for (const s of w().stage.stacks.filter((x) => x === w().stage.edge || x === w().stage.firewallStack)) {
        const report = new AwsSolutionsChecks().validateScope(s);
        expect(
          report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
          s.stackName,
        ).toEqual([]);
      }
    });

    it('copies the hashed assets (immutable, a year), then the rest with index.html and config.json (no-cache), and invalidates /dashboard/*', () => {
      expect(deployments()).toHaveLength(2);
      const bucketRef = { Ref: w().idOf(w().stage.site.bucket) };
      const [assetsId, assets] = byPrefix('dashboard/assets/');
      const [, app] = byPrefix('dashboard/');
      expect(assets.Properties).toMatchObject({
        DestinationBucketName: bucketRef,
        Prune: true,
        SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
      });
      expect(app.Properties).toMatchObject({
        DestinationBucketName: bucketRef,
        Prune: true,
        Exclude: ['assets/*'],
        SystemMetadata: { 'cache-control': 'no-cache' },
        DistributionId: { Ref: w().idOf(w().stage.site.distribution) },
        DistributionPaths: ['/dashboard/*'],
      });
      expect(app.DependsOn).toContain(assetsId);
      expect(assets.Properties.RetainOnDelete).toBe(stage === 'live');
    });

    it('writes config.json for this stage: region, user pool, its dashboard client (public, SRP), stage', () => {
      const [, app] = byPrefix('dashboard/');
      const keys = app.Properties.SourceObjectKeys as string[];
      const configs = keys
        .map((k) => join(w().app.outdir, `asset.${k.replace(/\.zip$/, '')}`, 'config.json'))
        .flatMap((f, i) => {
          try {
            return [{ i, json: JSON.parse(readFileSync(f, 'utf8')) as Json }];
          } catch {
            return [];
          }
        });
      expect(configs).toHaveLength(1);
      const { i, json } = configs[0]!;
      expect(Object.keys(json).sort()).toEqual(['region', 'stage', 'userPoolClientId', 'userPoolId']);
      expect(json.stage).toBe(stage);
      const markers = (app.Properties.SourceMarkers as Json[])[i]!;
      const markerOf = (field: string) => markers[json[field]];
      const pool = w().idOf(w().stage.people.userPool);
      expect(markerOf('userPoolId')).toEqual({ Ref: w().idOf(w().stage.people.userPool) });
      expect(markerOf('userPoolClientId')).toEqual({ Ref: w().idOf(w().stage.people.dashboardClient) });
      expect(markerOf('region')).toEqual({ 'Fn::Select': [0, { 'Fn::Split': ['_', { Ref: pool }] }] });
      // The client the app signs in with: public (no secret), SRP.
      const client = w().resources[w().idOf(w().stage.people.dashboardClient)]!.Properties;
      expect(client.GenerateSecret).toBe(false);
      expect(client.ExplicitAuthFlows).toContain('ALLOW_USER_SRP_AUTH');
    });

    it("gives the deployment's function its own role: no AWS managed policy, logs to its own group", () => {
      const role = w().resources[w().idOf(w().stage.site.deployments[0]!.handlerRole as never)]!;
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    });
  });
});

describe('custom domain (live build above)', () => {
  it('serves the domain with its certificate and TLSv1.2_2021 at least, and outputs its URL', () => {
    const config = distributionOf(withBuild.live);
    expect(config.Aliases).toEqual([DOMAIN]);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: CERT,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    expect(withBuild.live.templates[edgeStackNameOf('live')]!.Outputs.DashboardUrl.Value).toBe(`https://${DOMAIN}/dashboard/`);
  });

  it('reads the domain and certificate from context, both or neither', () => {
    const appWith = (context: Record<string, unknown>) => new App({ context });
    expect(readSettings(appWith({ dashboardDomain: DOMAIN, dashboardCertificateArn: CERT })).dashboardDomain).toEqual({
      name: DOMAIN,
      certificateArn: CERT,
    });
    expect(() => readSettings(appWith({ dashboardDomain: DOMAIN }))).toThrow(/go together/);
    expect(() => readSettings(appWith({ dashboardDomain: 'https://x', dashboardCertificateArn: CERT }))).toThrow(/dashboardDomain/);
    expect(() =>
      readSettings(appWith({ dashboardDomain: DOMAIN, dashboardCertificateArn: CERT.replace('us-east-1', 'eu-west-1') })),
    ).toThrow(/us-east-1/);
    expect(readSettings(appWith({ dashboardDist: '/tmp/x' })).dashboardDist).toBe('/tmp/x');
  });
});

describe('the viewer-request function', () => {
  it('redirects / and /dashboard to /dashboard/', () => {
    for (const uri of ['/', '/dashboard']) {
      expect(viewerRequest(uri)).toMatchObject({ statusCode: 302, headers: { location: { value: '/dashboard/' } } });
    }
  });

  it("serves index.html for the app's routes and files as they are", () => {
    for (const uri of ['/dashboard/', '/dashboard/keys', '/dashboard/webhooks/we_123/deliveries', '/dashboard/audit-log']) {
      expect(viewerRequest(uri).uri, uri).toBe('/dashboard/index.html');
    }
    for (const uri of ['/dashboard/assets/index-a1b2c3.js', '/dashboard/config.json', '/dashboard/favicon.svg', '/dashboard/index.html']) {
      expect(viewerRequest(uri).uri, uri).toBe(uri);
    }
  });

  it('answers 404 for any path outside the dashboard (the default behaviour)', () => {
    for (const uri of ['/favicon.ico', '/admin', '/dashboardx/keys']) {
      expect(viewerRequest(uri), uri).toMatchObject({ statusCode: 404, body: { encoding: 'text', data: 'Not found' } });
    }
  });
});
