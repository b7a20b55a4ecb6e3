/**
 * The local services of a test project: DynamoDB Local (a fresh instance per test file:
 * dynamo-pool.ts), one SQS emulator and one Cognito emulator (each test file creates its own
 * table and queues with unique names, so files running side by side share no data).
 */
import type { TestProject } from 'vitest/node';
import { startSqs } from '../../local/services';
import { startDynamoPool } from './dynamo-pool';
import { ensureDashboardBuilt } from '../../local/dashboard';
import { ensureUserPool, startCognito, type LocalUserPool } from '../../local/cognito';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The project's DynamoDB Local lease server: a fresh instance per test file (dynamo-pool.ts). */
    dynamoPool: string;
    sqsEndpoint: string;
    /** The run's Cognito emulator, its sandbox pool and dashboard client, and its data folder (confirmation codes). */
    cognito: LocalUserPool & { endpoint: string; dataDir: string };
  }
}

/** DynamoDB Local slots per project (a project runs at most 2 files at once). */
const DYNAMO_SLOTS = 2;

export default async function setup(project: TestProject) {
  // The dashboard's browser tests load the built app from the local server (local/dashboard.ts).
  ensureDashboardBuilt();
  // A fresh DynamoDB Local per test file (dynamo-pool.ts): its GetRecords costs more CPU with
  // every stream record the instance holds.
  const dynamos = await startDynamoPool(DYNAMO_SLOTS);
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
    await dynamos.stop();
    throw e;
  }
  project.provide('dynamoPool', dynamos.url);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    await cognito.stop().catch(() => undefined);
    await sqs.stop().catch(() => undefined);
    await dynamos.stop().catch(() => undefined);
  };
}
