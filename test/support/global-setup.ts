/**
 * One DynamoDB Local and one SQS emulator per test run (each test file then creates its
 * own table and queues with unique names, so files run in parallel without sharing data).
 */
import type { TestProject } from 'vitest/node';
import { startDynamo, startSqs } from '../../local/services';
import { ensureDashboardBuilt } from '../../local/dashboard';
import { ensureUserPool, startCognito, type LocalUserPool } from '../../local/cognito';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    sqsEndpoint: string;
    /** The run's Cognito emulator, its sandbox pool and dashboard client, and its data folder (confirmation codes). */
    cognito: LocalUserPool & { endpoint: string; dataDir: string };
  }
}

export default async function setup(project: TestProject) {
  // The dashboard's browser tests load the built app from the local server (local/dashboard.ts).
  ensureDashboardBuilt();
  const dynamo = await startDynamo();
  let sqs;
  let cognito;
  try {
    sqs = await startSqs();
    cognito = await startCognito();
    const pool = await ensureUserPool(cognito.endpoint, 'sandbox');
    project.provide('cognito', { ...pool, endpoint: cognito.endpoint, dataDir: cognito.dataDir });
  } catch (e) {
    await cognito?.stop().catch(() => undefined);
    await sqs?.stop().catch(() => undefined);
    await dynamo.stop();
    throw e;
  }
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    await cognito.stop().catch(() => undefined);
    await sqs.stop().catch(() => undefined);
    await dynamo.stop().catch(() => undefined);
  };
}
