#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IdpayStage } from '../lib/stack';
import { DEFAULT_DASHBOARD_DIST } from '../lib/edge';
import { readSettings } from '../lib/settings';

/**
 * CDK app: the stacks of one stage (lib/stack.ts: data, core, route stacks by area,
 * observability), chosen by context (`-c stage=live`, default sandbox).
 * `-c operatorKeyHash=<sha256 hex of the operator key>` (without it no operator call works),
 * optional `-c alarmEmail=<address>`. No account/region: synthesizes offline (the WAF stack
 * alone is pinned to us-east-1, where CloudFront's web ACLs live).
 * The dashboard's build (`dashboard/dist`, or `-c dashboardDist=<folder>`) is deployed to its
 * bucket when it holds an index.html; without a build the synth still succeeds, without the
 * deployment. (The template tests build stages without a build folder unless they pass one.)
 * Optional `-c dashboardDomain=<name> -c dashboardCertificateArn=<us-east-1 ACM ARN>`.
 * Deploy with `cdk deploy --all` (CloudFormation exports order the stacks).
 */
const app = new App();
const settings = readSettings(app);
new IdpayStage(app, { ...settings, dashboardDist: settings.dashboardDist ?? DEFAULT_DASHBOARD_DIST });
// cdk-nag (v3 API): any unacknowledged AwsSolutions finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
