#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IdpayStack, stackNameOf } from '../lib/stack';
import { readSettings } from '../lib/settings';

/**
 * CDK app: one stack per stage, chosen by context (`-c stage=live`, default sandbox).
 * `-c operatorKeyHash=<sha256 hex of the operator key>` (without it no operator call works),
 * optional `-c alarmEmail=<address>`. No account/region: synthesizes offline.
 */
const app = new App();
const settings = readSettings(app);
new IdpayStack(app, stackNameOf(settings.stage), {
  ...settings,
  description: `idpay identity-based payments, ${settings.stage} stage`,
});
// cdk-nag (v3 API): any unacknowledged AwsSolutions finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
