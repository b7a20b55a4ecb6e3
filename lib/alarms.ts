import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { dlqName } from '../functions/platform/definitions';
import type { WorkQueues } from './data';
import { pascal, type StageName } from './settings';

export interface AlarmsProps {
  stage: StageName;
  api: apigw.HttpApi;
  queues: WorkQueues;
  /** Every function of the stack, by a stable construct-id-like name. */
  functions: { name: string; fn: lambda.IFunction }[];
  alarmEmail?: string;
}

/**
 * Alarms, all sent to one SNS topic:
 * - each DLQ: ApproximateNumberOfMessagesVisible > 0 (max over 1 minute);
 * - each function: Errors > 0 (sum over 5 minutes). One alarm per function rather than one
 *   metric-math alarm across all: CloudWatch math alarms take at most 10 metrics and there
 *   are ~60 functions; a per-function alarm also names the broken handler;
 * - the API: 5xx responses > 0 (sum over 5 minutes). Handlers turn errors into 500
 *   envelopes, so this catches what the Lambda Errors metric does not.
 */
export class Alarms extends Construct {
  readonly topic: sns.Topic;
  readonly dlqAlarms: cloudwatch.Alarm[] = [];
  readonly functionErrorAlarms: cloudwatch.Alarm[] = [];
  readonly api5xxAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    // Not KMS-encrypted: CloudWatch cannot publish to a topic encrypted with the AWS managed
    // SNS key, and notifications carry only alarm names and states.
    this.topic = new sns.Topic(this, 'Topic', { displayName: `idpay ${props.stage} alarms`, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const prefix = `idpay-${props.stage}`;

    for (const { definition, dlq } of props.queues.all) {
      const alarm = new cloudwatch.Alarm(this, `${pascal(dlqName(definition))}NotEmpty`, {
        alarmName: `${prefix}-${dlqName(definition)}-not-empty`,
        alarmDescription: `Messages in the ${dlqName(definition)} DLQ: inspect, fix, then npm run ops -- dlq:replay`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      this.dlqAlarms.push(alarm);
    }

    for (const { name, fn } of props.functions) {
      const alarm = new cloudwatch.Alarm(this, `${name}Errors`, {
        alarmDescription: `Unhandled errors or timeouts in ${name}`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      this.functionErrorAlarms.push(alarm);
    }

    this.api5xxAlarm = new cloudwatch.Alarm(this, 'Api5xx', {
      alarmName: `${prefix}-api-5xx`,
      alarmDescription: 'The API answered 5xx (500 envelopes, integration failures or timeouts)',
      metric: props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.api5xxAlarm.addAlarmAction(action);
  }
}
