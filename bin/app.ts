#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IdpayStage } from '../lib/stack';
import { readSettings } from '../lib/settings';

/**
 * CDK app: the stacks of one stage (lib/stack.ts: data, core, route stacks by area,
 * observability), chosen by context (`-c stage=live`, default sandbox).
 * `-c operatorKeyHash=<sha256 hex of the operator key>` (without it no operator call works),
 * optional `-c alarmEmail=<address>`. No account/region: synthesizes offline.
 * Deploy with `cdk deploy --all` (CloudFormation exports order the stacks).
 */
const app = new App();
new IdpayStage(app, readSettings(app));
// cdk-nag (v3 API): any unacknowledged AwsSolutions finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
