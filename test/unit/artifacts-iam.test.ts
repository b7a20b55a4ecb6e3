/**
 * Artifacts mode's mapping of AWS calls to IAM authorizations (local/artifacts/iam.ts), and
 * its evaluation against policies like the template's.
 */
import { describe, expect, it } from 'vitest';
import { IamPrincipal, dynamoAuthorizations, secretsAuthorizations, sqsAuthorizations } from '../../local/artifacts/iam';

const ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/t1';
const table = (name: string) => {
  if (name !== 't1' && name !== ARN) throw new Error(`Requested resource not found: ${name}`);
  return { arn: ARN, partitionKey: 'pk' };
};
const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 'X' } });

describe('DynamoDB calls -> IAM authorizations', () => {
  it('item operations: the action on the table ARN with the partition key as dynamodb:LeadingKeys', () => {
    expect(dynamoAuthorizations('UpdateItem', { TableName: 't1', Key: key('APIKEY#a') }, table, 'us-east-1')).toEqual([
      { action: 'dynamodb:UpdateItem', resource: ARN, context: { 'dynamodb:LeadingKeys': ['APIKEY#a'] } },
    ]);
    expect(dynamoAuthorizations('PutItem', { TableName: ARN, Item: { ...key('PART#1'), n: { N: '1' } } }, table, 'us-east-1')).toEqual([
      { action: 'dynamodb:PutItem', resource: ARN, context: { 'dynamodb:LeadingKeys': ['PART#1'] } },
    ]);
  });

  it('transactions are authorized item by item as the single-item actions', () => {
    const auths = dynamoAuthorizations(
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: 't1', Item: key('A') } },
          { Update: { TableName: 't1', Key: key('B') } },
          { Delete: { TableName: 't1', Key: key('C') } },
          { ConditionCheck: { TableName: 't1', Key: key('D') } },
        ],
      },
      table,
      'us-east-1',
    );
    expect(auths.map((a) => [a.action, a.context?.['dynamodb:LeadingKeys']])).toEqual([
      ['dynamodb:PutItem', ['A']],
      ['dynamodb:UpdateItem', ['B']],
      ['dynamodb:DeleteItem', ['C']],
      ['dynamodb:ConditionCheckItem', ['D']],
    ]);
  });

  it('an index query is on the index ARN; a table query carries its partition key value', () => {
    expect(dynamoAuthorizations('Query', { TableName: 't1', IndexName: 'gsi1' }, table, 'us-east-1')).toEqual([
      { action: 'dynamodb:Query', resource: `${ARN}/index/gsi1`, context: {} },
    ]);
    const q = dynamoAuthorizations(
      'Query',
      {
        TableName: 't1',
        KeyConditionExpression: '#p = :p AND begins_with(sk, :s)',
        ExpressionAttributeNames: { '#p': 'pk' },
        ExpressionAttributeValues: { ':p': { S: 'WHEP#1' }, ':s': { S: 'EP#' } },
      },
      table,
      'us-east-1',
    );
    expect(q[0]!.context).toEqual({ 'dynamodb:LeadingKeys': ['WHEP#1'] });
  });

  it('batch calls: one authorization per table with every key', () => {
    expect(
      dynamoAuthorizations('BatchGetItem', { RequestItems: { t1: { Keys: [key('A'), key('B'), key('A')] } } }, table, 'us-east-1'),
    ).toEqual([{ action: 'dynamodb:BatchGetItem', resource: ARN, context: { 'dynamodb:LeadingKeys': ['A', 'B'] } }]);
  });

  it('an unknown table is refused before any policy is read', () => {
    expect(() => dynamoAuthorizations('GetItem', { TableName: 'other', Key: key('A') }, table, 'us-east-1')).toThrow(
      'Requested resource not found',
    );
  });
});

describe('SQS and Secrets Manager calls -> IAM authorizations', () => {
  it('SQS: batch operations as their single action, on the queue ARN from the URL, over TLS', () => {
    expect(sqsAuthorizations('SendMessageBatch', { QueueUrl: 'http://sqs.us-east-1.localhost:1/000000000000/q1' }, 'us-east-1')).toEqual([
      { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:q1', context: { 'aws:SecureTransport': 'true' } },
    ]);
    expect(sqsAuthorizations('ChangeMessageVisibilityBatch', { QueueUrl: 'http://h/000000000000/q2' }, 'us-east-1')[0]!.action).toBe(
      'sqs:ChangeMessageVisibility',
    );
  });

  it('Secrets Manager: the operation on the secret ARN (a name resolved to it)', () => {
    const arn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:S-AbCdEf';
    expect(secretsAuthorizations('GetSecretValue', { SecretId: 'S' }, () => arn)).toEqual([
      { action: 'secretsmanager:GetSecretValue', resource: arn },
    ]);
  });
});

describe('IamPrincipal', () => {
  const principal = new IamPrincipal('arn:aws:sts::000000000000:assumed-role/R/f', [
    {
      name: 'p',
      policy: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: [ARN, `${ARN}/index/*`] },
          {
            Effect: 'Allow',
            Action: 'dynamodb:UpdateItem',
            Resource: ARN,
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] } },
          },
          { Effect: 'Deny', Action: 'dynamodb:Query', Resource: `${ARN}/index/secret` },
        ],
      },
    },
  ]);

  it('allows what a statement allows, within its conditions', async () => {
    expect(await principal.check([{ action: 'dynamodb:GetItem', resource: ARN }])).toEqual({ allowed: true });
    expect(await principal.check([{ action: 'dynamodb:Query', resource: `${ARN}/index/gsi1` }])).toEqual({ allowed: true });
    expect(
      await principal.check([{ action: 'dynamodb:UpdateItem', resource: ARN, context: { 'dynamodb:LeadingKeys': ['APIKEY#x'] } }]),
    ).toEqual({ allowed: true });
  });

  it('refuses the rest, naming the first refused authorization and whether a Deny matched', async () => {
    expect(
      await principal.check([
        { action: 'dynamodb:GetItem', resource: ARN },
        { action: 'dynamodb:UpdateItem', resource: ARN, context: { 'dynamodb:LeadingKeys': ['PART#x'] } },
      ]),
    ).toEqual({ allowed: false, explicit: false, action: 'dynamodb:UpdateItem', resource: ARN });
    expect(await principal.check([{ action: 'dynamodb:PutItem', resource: ARN }])).toMatchObject({ allowed: false, explicit: false });
    expect(await principal.check([{ action: 'dynamodb:Query', resource: `${ARN}/index/secret` }])).toMatchObject({
      allowed: false,
      explicit: true,
    });
  });
});
