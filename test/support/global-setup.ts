/**
 * One DynamoDB Local and one SQS emulator per test run (each test file then creates its
 * own table and queues with unique names, so files run in parallel without sharing data).
 */
import type { TestProject } from 'vitest/node';
import { startDynamo, startSqs } from '../../local/services';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    sqsEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const dynamo = await startDynamo();
  let sqs;
  try {
    sqs = await startSqs();
  } catch (e) {
    await dynamo.stop();
    throw e;
  }
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    await sqs.stop().catch(() => undefined);
    await dynamo.stop().catch(() => undefined);
  };
}
